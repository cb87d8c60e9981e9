package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
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
	process
	root           string // the gateway's directory
	access, secret string
	client         *s3.Client
}

// NewVersitygw builds versitygw from tools/go.mod (see Tool), starts it and creates
// the bucket; it is killed when the test ends.
func NewVersitygw(t testing.TB) *Versitygw {
	t.Helper()
	bin := Tool(t, VersitygwPackage)
	g := &Versitygw{
		root:   t.TempDir(),
		access: "inferd" + rand.Text()[:14],
		secret: rand.Text() + rand.Text()[:14],
	}
	g.process = process{
		name:   "versitygw",
		log:    filepath.Join(t.TempDir(), "versitygw.log"),
		within: versitygwStart,
		cmd: func(port int) *exec.Cmd {
			cmd := exec.Command(bin, "--port", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "posix", g.root)
			cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+g.access, "ROOT_SECRET_KEY="+g.secret)
			return cmd
		},
		ready: g.answers,
	}
	t.Cleanup(func() { g.Stop(t) })
	g.open(t)
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
func (g *Versitygw) Stop(t testing.TB) { g.kill() }

// Start runs the gateway again on its port, over the same directory, and waits
// until it answers.
func (g *Versitygw) Start(t testing.TB) {
	t.Helper()
	g.restart(t, versitygwStart, 100*time.Millisecond)
}

// answers is nil once the gateway answers an authenticated request.
func (g *Versitygw) answers() error {
	probe := s3.New(s3.Options{
		Region:           versitygwRegion,
		BaseEndpoint:     aws.String(g.Endpoint()),
		UsePathStyle:     true,
		Credentials:      credentials.NewStaticCredentialsProvider(g.access, g.secret, ""),
		RetryMaxAttempts: 1,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := probe.ListBuckets(ctx, &s3.ListBucketsInput{})
	return err
}
