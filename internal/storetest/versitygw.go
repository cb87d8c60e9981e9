package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/inferd/inferd/internal/testport"
)

// VersitygwPackage is the command Versitygw runs, as tools/go.mod pins it.
const VersitygwPackage = "github.com/versity/versitygw/cmd/versitygw"

const (
	// versitygwBucket and versitygwPrefix are where the repository is: below a
	// prefix, so that a Store that forgets its prefix fails the listings.
	versitygwBucket = "models"
	versitygwPrefix = "repo/"
	versitygwRegion = "us-east-1" // versitygw's own default
	// versitygwStart bounds how long a versitygw may take to answer, on a machine
	// busy with other test binaries.
	versitygwStart = 30 * time.Second
)

// Versitygw is an Outage over versitygw, an S3 gateway over a directory, run by the
// test on a free port of loopback with credentials of its own, and a bucket
// "models" whose "repo/" prefix holds the repository. The test writes to it with an
// S3 client of its own, not with the Store under test.
type Versitygw struct {
	bin            string
	root, log      string // the gateway's directory, and the file of its output
	port           int
	access, secret string
	client         *s3.Client

	mu     sync.Mutex
	proc   *os.Process
	exited chan struct{} // closed once proc has been waited for
}

// NewVersitygw builds versitygw from tools/go.mod (see Tool), starts it and creates
// the bucket; it is killed when the test ends.
func NewVersitygw(t testing.TB) *Versitygw {
	t.Helper()
	g := &Versitygw{
		bin:    Tool(t, VersitygwPackage),
		root:   t.TempDir(),
		log:    filepath.Join(t.TempDir(), "versitygw.log"),
		access: "inferd" + rand.Text()[:14],
		secret: rand.Text() + rand.Text()[:14],
	}
	t.Cleanup(func() { g.Stop(t) })
	var err error
	// A port found free can be taken before versitygw binds it: try a few.
	for range 3 {
		if g.port, err = testport.Free(); err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		if err = g.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("starting versitygw: %v", err)
	}
	g.client = s3.New(s3.Options{
		Region:       versitygwRegion,
		BaseEndpoint: aws.String(g.Endpoint()),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(g.access, g.secret, ""),
	})
	if _, err := g.client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(versitygwBucket)}); err != nil {
		t.Fatalf("creating the bucket: %v\n%s", err, g.output())
	}
	return g
}

// URL is "s3://models/repo".
func (g *Versitygw) URL() string {
	return "s3://" + versitygwBucket + "/" + versitygwPrefix[:len(versitygwPrefix)-1]
}

// Endpoint is the gateway's URL, as AWS_ENDPOINT_URL_S3 names it.
func (g *Versitygw) Endpoint() string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(g.port))
}

// Env is the endpoint, the region and the gateway's credentials, as the AWS SDK (and
// so inferd) reads them.
func (g *Versitygw) Env() []string {
	return []string{
		"AWS_ENDPOINT_URL_S3=" + g.Endpoint(),
		"AWS_ACCESS_KEY_ID=" + g.access,
		"AWS_SECRET_ACCESS_KEY=" + g.secret,
		"AWS_REGION=" + versitygwRegion,
	}
}

// Put uploads an object with PutObject, as an upload tool does: it appears whole.
func (g *Versitygw) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	_, err := g.client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket:        aws.String(versitygwBucket),
		Key:           aws.String(versitygwPrefix + key),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		t.Fatalf("putting %s: %v", key, err)
	}
}

// Delete removes an object; S3 answers a missing one as deleted.
func (g *Versitygw) Delete(t testing.TB, key string) {
	t.Helper()
	_, err := g.client.DeleteObject(context.Background(), &s3.DeleteObjectInput{
		Bucket: aws.String(versitygwBucket),
		Key:    aws.String(versitygwPrefix + key),
	})
	if err != nil {
		t.Fatalf("deleting %s: %v", key, err)
	}
}

// Stop kills the gateway (SIGKILL: no goodbye to its clients). It is idempotent.
func (g *Versitygw) Stop(t testing.TB) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.proc == nil {
		return
	}
	_ = g.proc.Kill()
	<-g.exited
	g.proc, g.exited = nil, nil
}

// Start runs the gateway again on its port, over the same directory, and waits
// until it answers.
func (g *Versitygw) Start(t testing.TB) {
	t.Helper()
	var err error
	// The dead process's socket may linger for a moment.
	for deadline := time.Now().Add(versitygwStart); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = g.start(); err == nil {
			return
		}
	}
	t.Fatalf("restarting versitygw on port %d: %v", g.port, err)
}

// start runs versitygw on g.port and waits until it answers an authenticated
// request, or fails with its output.
func (g *Versitygw) start() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.proc != nil {
		return nil
	}
	logf, err := os.OpenFile(g.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(g.bin, "--port", net.JoinHostPort("127.0.0.1", strconv.Itoa(g.port)), "posix", g.root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+g.access, "ROOT_SECRET_KEY="+g.secret)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	probe := s3.New(s3.Options{
		Region:           versitygwRegion,
		BaseEndpoint:     aws.String(g.Endpoint()),
		UsePathStyle:     true,
		Credentials:      credentials.NewStaticCredentialsProvider(g.access, g.secret, ""),
		RetryMaxAttempts: 1,
	})
	for deadline := time.Now().Add(versitygwStart); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return fmt.Errorf("versitygw exited: %s", g.output())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := probe.ListBuckets(ctx, &s3.ListBucketsInput{})
		cancel()
		if err == nil {
			g.proc, g.exited = cmd.Process, exited
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("versitygw did not answer within %s: %v\n%s", versitygwStart, err, g.output())
		}
	}
}

// output is the end of what versitygw printed.
func (g *Versitygw) output() string {
	b, _ := os.ReadFile(g.log)
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
