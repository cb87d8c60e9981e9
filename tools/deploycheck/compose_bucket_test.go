package deploycheck

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/config"
)

// checkComposeBucket checks the stack with deploy/compose.bucket.yaml: a versitygw
// gateway (s3), a one-shot models-upload that syncs models/ into the bucket MODELS_DIR
// names, with the gateway's keys, before any inferd process starts; and every server
// and worker reading that bucket through the gateway, polling it, with a cache of its
// own on a named volume its user may write.
func checkComposeBucket(t *testing.T, c composeFile) {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	img := readImage(t)

	gw, ok := c.Services["s3"]
	if !ok {
		t.Fatal("no service s3, the S3-compatible gateway")
	}
	if !strings.HasPrefix(gw.Image, "versity/versitygw:v") {
		t.Errorf("s3 runs %s: want versitygw, pinned (versity/versitygw:vX.Y.Z), the gateway inferd's tests run against", gw.Image)
	}
	port := ""
	if i := slices.Index(gw.Command, "--port"); i >= 0 && i+1 < len(gw.Command) {
		_, port, _ = strings.Cut(gw.Command[i+1], ":")
	}
	if port == "" {
		t.Fatalf("s3 runs %v: want --port :PORT", gw.Command)
	}
	access, secret := gw.Environment["ROOT_ACCESS_KEY"], gw.Environment["ROOT_SECRET_KEY"]
	if access == "" || secret == "" {
		t.Error("s3: ROOT_ACCESS_KEY and ROOT_SECRET_KEY are the gateway's keys: set both")
	}
	if gw.Healthcheck == nil || !strings.Contains(strings.Join(gw.Healthcheck.Test, " "), gw.Environment["VGW_HEALTH"]) || gw.Environment["VGW_HEALTH"] == "" {
		t.Error("s3: want VGW_HEALTH and a healthcheck asking it, for models-upload to wait on")
	}
	endpoint := "http://s3:" + port

	// The repository the inferd services read, from the first one (all must agree).
	var repo string
	up, ok := c.Services["models-upload"]
	switch {
	case !ok:
		t.Error("no service models-upload, which fills the bucket from models/")
	default:
		if up.DependsOn["s3"].Condition != "service_healthy" {
			t.Errorf("models-upload depends on s3 %+v: want condition service_healthy", up.DependsOn["s3"])
		}
		if up.Environment["AWS_ACCESS_KEY_ID"] != access || up.Environment["AWS_SECRET_ACCESS_KEY"] != secret {
			t.Error("models-upload's AWS keys are not the gateway's ROOT_ACCESS_KEY and ROOT_SECRET_KEY")
		}
		src := ""
		for _, v := range up.Volumes {
			if parts := strings.Split(v, ":"); len(parts) == 3 && parts[0] == filepath.Join(abs, "models") && parts[2] == "ro" {
				src = parts[1]
			}
		}
		if src == "" {
			t.Errorf("models-upload mounts %v: want the repository's models/, read-only", up.Volumes)
		}
		script := ""
		if n := len(up.Entrypoint); n == 3 && up.Entrypoint[0] == "sh" && up.Entrypoint[1] == "-c" {
			script = up.Entrypoint[2]
		}
		// An older AWS CLI (Debian's 2.9) ignores AWS_ENDPOINT_URL: the flag says where.
		sync := regexp.MustCompile(`--endpoint-url (\S+) s3 sync .*?(\S+) (s3://\S+)`).FindStringSubmatch(script)
		switch {
		case sync == nil:
			t.Errorf("models-upload runs %q: want aws --endpoint-url URL s3 sync ... DIR s3://bucket/prefix", script)
		case sync[1] != endpoint || sync[2] != src:
			t.Errorf("models-upload syncs %s to %s: want %s (models/) to the gateway %s", sync[2], sync[1], src, endpoint)
		default:
			repo = sync[3]
		}
		if !strings.HasPrefix(script, "set -e;") {
			t.Errorf("models-upload runs %q: start with set -e, so that a failed step fails the service and nothing starts on a half-filled bucket", script)
		}
	}

	caches := map[string]string{} // volume: service
	var inferd []string
	image := ""
	for _, s := range c.Services {
		if s.Build != nil {
			image = s.Image // the one service that builds it (checkCompose)
		}
	}
	for name, s := range c.Services {
		if s.Image == image {
			inferd = append(inferd, name)
		}
	}
	slices.Sort(inferd)
	if len(inferd) != 4 {
		t.Errorf("inferd services %v: want the two servers and two workers", inferd)
	}
	for _, name := range inferd {
		t.Run(name+" reads the bucket", func(t *testing.T) {
			s := c.Services[name]
			env := s.Environment
			if repo != "" && env["MODELS_DIR"] != repo {
				t.Errorf("MODELS_DIR=%s: want %s, where models-upload puts models/", env["MODELS_DIR"], repo)
			}
			if u, err := url.Parse(env["MODELS_DIR"]); err != nil || u.Scheme != "s3" {
				t.Errorf("MODELS_DIR=%s: want s3://bucket/prefix", env["MODELS_DIR"])
			}
			if got := env["AWS_ENDPOINT_URL_S3"]; got != endpoint {
				t.Errorf("AWS_ENDPOINT_URL_S3=%s: want the gateway, %s", got, endpoint)
			}
			if env["AWS_ACCESS_KEY_ID"] != access || env["AWS_SECRET_ACCESS_KEY"] != secret {
				t.Error("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not the gateway's keys")
			}
			if d, err := time.ParseDuration(env["REPOSITORY_POLL_INTERVAL"]); err != nil || d <= 0 {
				t.Errorf("REPOSITORY_POLL_INTERVAL=%s: want a poll, so that a version uploaded later is served", env["REPOSITORY_POLL_INTERVAL"])
			}
			if cond := s.DependsOn["models-upload"].Condition; cond != "service_completed_successfully" {
				t.Errorf("depends on models-upload %q: want service_completed_successfully, so that the first sync finds the models", cond)
			}

			// The cache: a named volume of this service alone (a cache is one process's),
			// writable, at a directory the image gives its user (a new named volume
			// takes the owner of the image's directory; the root file system is read-only).
			dir := env["MODEL_CACHE_DIR"]
			vol := ""
			for _, v := range s.Volumes {
				parts := strings.Split(v, ":")
				if len(parts) >= 2 && parts[1] == dir && !filepath.IsAbs(parts[0]) && (len(parts) == 2 || parts[2] == "rw") {
					vol = parts[0]
				}
			}
			if dir == "" || vol == "" {
				t.Errorf("MODEL_CACHE_DIR=%q: want a named volume mounted there, writable (volumes %v)", dir, s.Volumes)
			} else if other, dup := caches[vol]; dup {
				t.Errorf("the cache volume %s is %s's too: a cache is one process's", vol, other)
			}
			caches[vol] = name
			if dir != "" && !imageOwns(t, dir, img.user) {
				t.Errorf("MODEL_CACHE_DIR=%s: deploy/Dockerfile does not make it the user %s's (install -d -o UID -g GID %s)", dir, img.user, dir)
			}

			merged := map[string]string{}
			for k, v := range img.env {
				merged[k] = v
			}
			for k, v := range env {
				merged[k] = v
			}
			readFile := func(string) ([]byte, error) { return []byte("check-key:predict\n"), nil }
			if _, err := config.Load(func(k string) string { return merged[k] }, readFile); err != nil {
				t.Errorf("inferd refuses the settings: %v", err)
			}
		})
	}
}

// imageOwns reports whether deploy/Dockerfile makes dir with `install -d` owned by the
// image's user.
func imageOwns(t *testing.T, dir, user string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	uid, gid, _ := strings.Cut(user, ":")
	re := regexp.MustCompile(`install -d -o ` + regexp.QuoteMeta(uid) + ` -g ` + regexp.QuoteMeta(gid) + `( -m \d+)? ` + regexp.QuoteMeta(dir) + `\b`)
	return re.Match(b)
}
