//go:build !linux

package listen

import (
	"errors"
	"net"
)

func refuseSYN(net.Listener) error { return errors.ErrUnsupported }

func acceptQueue(net.Listener) (int, error) { return 0, errors.ErrUnsupported }
