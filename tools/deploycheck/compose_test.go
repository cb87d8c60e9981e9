package deploycheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// composeFile is docker-compose's own rendering of deploy/compose.yaml (`config`):
// anchors and merges resolved, paths absolute.
type composeFile struct {
	Services map[string]composeService `json:"services"`
	Secrets  map[string]struct {
		File string `json:"file"`
	} `json:"secrets"`
}

type composeService struct {
	Image string `json:"image"`
	Build *struct {
		Context    string `json:"context"`
		Dockerfile string `json:"dockerfile"`
	} `json:"build"`
	Entrypoint  []string          `json:"entrypoint"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment"`
	Healthcheck *struct {
		Test []string `json:"test"`
	} `json:"healthcheck"`
	Volumes []string      `json:"volumes"`
	Ports   []composePort `json:"ports"`
	Secrets []struct {
		Source string `json:"source"`
	} `json:"secrets"`
	User      string `json:"user"`
	DependsOn map[string]struct {
		Condition string `json:"condition"`
	} `json:"depends_on"`
}

// composePort is a published port: docker-compose 1.x's `config` writes
// "[host_ip:]published:target[/protocol]", Compose v2's the long form.
type composePort struct {
	HostIP    string `json:"host_ip"`
	Published string `json:"published"`
	Target    string `json:"target"`
	Protocol  string `json:"protocol"`
}

func (p *composePort) UnmarshalJSON(b []byte) error {
	var short string
	if err := json.Unmarshal(b, &short); err != nil {
		var long struct {
			HostIP    string          `json:"host_ip"`
			Published json.RawMessage `json:"published"` // a number or a string
			Target    int             `json:"target"`
			Protocol  string          `json:"protocol"`
		}
		if err := json.Unmarshal(b, &long); err != nil {
			return err
		}
		*p = composePort{HostIP: long.HostIP, Published: strings.Trim(string(long.Published), `"`), Target: strconv.Itoa(long.Target), Protocol: long.Protocol}
		return nil
	}
	spec, proto, _ := strings.Cut(short, "/")
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		*p = composePort{Target: parts[0]}
	case 2:
		*p = composePort{Published: parts[0], Target: parts[1]}
	case 3:
		*p = composePort{HostIP: parts[0], Published: parts[1], Target: parts[2]}
	default:
		return fmt.Errorf("port %q: want [host_ip:]published:target[/protocol]", short)
	}
	p.Protocol = proto
	return nil
}

// readCompose runs `docker-compose config` on deploy/compose.yaml and the override
// files given (deploy/compose.bucket.yaml): it fails on what docker-compose would
// refuse, and prints the files as docker-compose understands them, merged.
func readCompose(t *testing.T, files ...string) composeFile {
	t.Helper()
	bin := requireCommand(t, "docker-compose", "docker-compose")
	args := []string{"-f", filepath.Join(root, "deploy/compose.yaml")}
	for _, f := range files {
		args = append(args, "-f", filepath.Join(root, f))
	}
	out, err := exec.Command(bin, append(args, "config")...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, out)
	}
	var c composeFile
	if err := yaml.Unmarshal(out, &c); err != nil {
		t.Fatalf("reading docker-compose config's output: %v\n%s", err, out)
	}
	return c
}

// TestCompose checks deploy/compose.yaml as docker-compose reads it: the services the
// issue asks for, settings inferd reads, keys from a secret file inferd accepts,
// mounts of files that exist, and a Prometheus that scrapes every inferd process at
// the port it listens on; and the same stack with deploy/compose.bucket.yaml, its
// repository in an S3-compatible gateway (checkComposeBucket).
func TestCompose(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		c := readCompose(t)
		checkCompose(t, c, false)
		for name, s := range c.Services {
			if v := s.Environment["MODELS_DIR"]; v != "" {
				t.Errorf("%s: MODELS_DIR=%s: the default stack serves the image's models", name, v)
			}
		}
	})
	t.Run("bucket", func(t *testing.T) {
		c := readCompose(t, "deploy/compose.bucket.yaml")
		checkCompose(t, c, true)
		checkComposeBucket(t, c)
	})
}

// checkCompose checks one rendering of the stack; with bucket, the AWS SDK's settings
// are allowed besides inferd's.
func checkCompose(t *testing.T, c composeFile, bucket bool) {
	img := readImage(t)
	names := settingNames()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}

	// One service builds the image and names it; the other inferd services run that
	// image by its name, so that `up --build` builds it once.
	var builders []string
	image := ""
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		builders = append(builders, name)
		image = s.Image
		if s.Build.Dockerfile != "deploy/Dockerfile" || filepath.Clean(s.Build.Context) != abs {
			t.Errorf("%s: builds %s in %s, want deploy/Dockerfile in the repository", name, s.Build.Dockerfile, s.Build.Context)
		}
	}
	slices.Sort(builders)
	if len(builders) != 1 || image == "" {
		t.Fatalf("services %v build an image (named %q): want one service that builds deploy/Dockerfile and names the image", builders, image)
	}

	var servers, workers []string
	for name, s := range c.Services {
		if s.Image != image {
			continue
		}
		switch strings.Join(s.Entrypoint, " ") {
		case "":
			servers = append(servers, name)
		case "inferd-worker":
			workers = append(workers, name)
		default:
			t.Errorf("%s: entrypoint %v, want the image's (inferd) or inferd-worker", name, s.Entrypoint)
		}
	}
	slices.Sort(servers)
	slices.Sort(workers)
	if len(servers) != 2 || len(workers) != 2 {
		t.Errorf("servers %v, workers %v: want two of each", servers, workers)
	}
	for _, name := range []string{"redis", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("no service %s", name)
		}
	}

	// listen is where an inferd service listens: the port its settings give.
	listen := map[string]string{}
	// published: which service publishes each host port.
	published := map[string]string{}
	for _, name := range append(slices.Clone(servers), workers...) {
		t.Run(name, func(t *testing.T) {
			s := c.Services[name]
			setting := func(k string) string {
				if v, ok := s.Environment[k]; ok {
					return v
				}
				if v, ok := img.env[k]; ok {
					return v
				}
				return settingDefault(t, k)
			}
			for k := range s.Environment {
				if !names[k] && !(bucket && awsSettings[k]) {
					t.Errorf("environment %s is no setting of inferd (internal/config)", k)
				}
			}
			port, bin := setting("PORT"), "inferd"
			// The ports the process listens on, and those of them published on the host:
			// a server's HTTP and gRPC ports (the API); a worker's, inside the network.
			ports, public := []string{port, strconv.Itoa(grpcPort(t, setting))}, 2
			if slices.Contains(workers, name) {
				port, bin = setting("WORKER_PORT"), "inferd-worker"
				ports, public = []string{port}, 0
			}
			listen[name] = port
			var targets []string
			for _, p := range s.Ports {
				targets = append(targets, p.Target)
				if !slices.Contains(ports, p.Target) {
					t.Errorf("publishes %s:%s, where the process listens on %v", p.Published, p.Target, ports)
				}
				if p.HostIP != "127.0.0.1" || p.Published == "" {
					t.Errorf("publishes %s:%s:%s: bind it to 127.0.0.1 on a given port, as every port of this file", p.HostIP, p.Published, p.Target)
				}
				if p.Protocol != "" && p.Protocol != "tcp" {
					t.Errorf("publishes %s/%s: inferd serves TCP", p.Target, p.Protocol)
				}
			}
			for _, want := range ports[:public] {
				if !slices.Contains(targets, want) {
					t.Errorf("does not publish its port %s (published: %v)", want, targets)
				}
			}
			want := []string{"CMD", bin, "--healthcheck"}
			if s.Healthcheck != nil && !slices.Equal(s.Healthcheck.Test, want) {
				t.Errorf("healthcheck %v, want %v", s.Healthcheck.Test, want)
			}
			if s.Healthcheck == nil && bin != "inferd" {
				t.Errorf("no healthcheck: the image's probes inferd, not %s", bin)
			}

			q, err := url.Parse(setting("QUEUE_URL"))
			if err != nil || q.Scheme != "redis" || q.Hostname() != "redis" {
				t.Errorf("QUEUE_URL %q: want redis://redis:6379/<db>, the service redis", setting("QUEUE_URL"))
			}

			// Keys: a worker, which serves no API, is given none. A server reads
			// API_KEYS_FILE from a volume that a one-shot service fills from the keys'
			// secret before the server starts (keysFromSecret).
			file := setting("API_KEYS_FILE")
			if slices.Contains(workers, name) {
				if file != "" || len(s.Secrets) > 0 {
					t.Errorf("API_KEYS_FILE=%q, secrets %v: a worker serves no API and needs no keys", file, s.Secrets)
				}
				return
			}
			if len(s.Secrets) > 0 {
				t.Errorf("secrets %v: a server reads no secret itself; its mode and owner are the host file's", s.Secrets)
			}
			keysFromSecret(t, c, name, file, img)
		})
	}

	t.Run("port syntax", func(t *testing.T) {
		for _, tt := range []struct {
			in   string
			want composePort
		}{
			{`"127.0.0.1:8001:8001/tcp"`, composePort{HostIP: "127.0.0.1", Published: "8001", Target: "8001", Protocol: "tcp"}},
			{`"8011:8001"`, composePort{Published: "8011", Target: "8001"}},
			{`"8001"`, composePort{Target: "8001"}},
			{`{"host_ip":"127.0.0.1","published":"8011","target":8001,"protocol":"tcp","mode":"ingress"}`, composePort{HostIP: "127.0.0.1", Published: "8011", Target: "8001", Protocol: "tcp"}},
			{`{"published":8011,"target":8001}`, composePort{Published: "8011", Target: "8001"}},
		} {
			var got composePort
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil || got != tt.want {
				t.Errorf("%s: %+v (%v), want %+v", tt.in, got, err, tt.want)
			}
		}
	})

	t.Run("host ports differ", func(t *testing.T) {
		for _, name := range slices.Sorted(maps.Keys(c.Services)) {
			for _, p := range c.Services[name].Ports {
				if other, ok := published[p.Published]; ok {
					t.Errorf("%s and %s both publish host port %s", other, name, p.Published)
				}
				published[p.Published] = name
			}
		}
	})

	t.Run("redis never evicts", func(t *testing.T) {
		// A job record or an asynq key evicted is a job lost (docs/operations.md).
		cmd := c.Services["redis"].Command
		arg := func(flag string) string {
			if i := slices.Index(cmd, flag); i >= 0 && i+1 < len(cmd) {
				return cmd[i+1]
			}
			return ""
		}
		if arg("--maxmemory-policy") != "noeviction" || arg("--maxmemory") == "" {
			t.Errorf("redis runs %v: want --maxmemory <limit> --maxmemory-policy noeviction", cmd)
		}
	})

	t.Run("mounts", func(t *testing.T) {
		for name, s := range c.Services {
			for _, v := range s.Volumes {
				src, _, _ := strings.Cut(v, ":")
				if !filepath.IsAbs(src) {
					continue // a named volume
				}
				rel, err := filepath.Rel(abs, src)
				if err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s mounts %s, outside the repository", name, src)
					continue
				}
				if _, err := os.Stat(src); err != nil {
					t.Errorf("%s mounts %s: %v", name, rel, err)
				}
			}
		}
	})

	t.Run("prometheus scrapes every inferd process", func(t *testing.T) {
		var cfg struct {
			RuleFiles     []string `json:"rule_files"`
			ScrapeConfigs []struct {
				JobName       string `json:"job_name"`
				MetricsPath   string `json:"metrics_path"`
				StaticConfigs []struct {
					Targets []string `json:"targets"`
				} `json:"static_configs"`
			} `json:"scrape_configs"`
		}
		promMounts := mounts(c.Services["prometheus"])
		b, err := os.ReadFile(promMounts["/etc/prometheus/prometheus.yml"])
		if err != nil {
			t.Fatalf("prometheus.yml mounted at /etc/prometheus/prometheus.yml: %v", err)
		}
		if err := yaml.Unmarshal(b, &cfg); err != nil {
			t.Fatalf("prometheus.yml: %v", err)
		}
		// promtool reads the whole file as Prometheus would; the rule files are
		// paths inside the container, so only the syntax.
		promtool := requireCommand(t, "promtool", "prometheus")
		if out, err := exec.Command(promtool, "check", "config", "--syntax-only", promMounts["/etc/prometheus/prometheus.yml"]).CombinedOutput(); err != nil {
			t.Errorf("promtool check config: %v\n%s", err, out)
		}
		scraped := map[string]bool{}
		for _, sc := range cfg.ScrapeConfigs {
			if sc.MetricsPath != "" && sc.MetricsPath != "/metrics" {
				t.Errorf("job %s scrapes %s, want /metrics", sc.JobName, sc.MetricsPath)
			}
			for _, st := range sc.StaticConfigs {
				for _, target := range st.Targets {
					host, port, err := net.SplitHostPort(target)
					if err != nil || listen[host] != port {
						t.Errorf("job %s: target %s: want <inferd service>:<its port> (%v)", sc.JobName, target, listen)
					}
					scraped[host] = true
				}
			}
		}
		for name := range listen {
			if !scraped[name] {
				t.Errorf("no scrape config scrapes %s", name)
			}
		}
		for _, f := range cfg.RuleFiles {
			if _, ok := promMounts[f]; !ok {
				t.Errorf("rule_files names %s, which is not mounted into prometheus", f)
			}
		}
	})

	t.Run("grafana loads the dashboards", func(t *testing.T) {
		gm := mounts(c.Services["grafana"])
		prov := gm["/etc/grafana/provisioning"]
		var dash struct {
			Providers []struct {
				Options struct {
					Path string `json:"path"`
				} `json:"options"`
			} `json:"providers"`
		}
		b, err := os.ReadFile(filepath.Join(prov, "dashboards/inferd.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &dash); err != nil || len(dash.Providers) != 1 {
			t.Fatalf("dashboards/inferd.yaml: %v, %d providers", err, len(dash.Providers))
		}
		if src := gm[dash.Providers[0].Options.Path]; src != filepath.Join(abs, "deploy/grafana/dashboards") {
			t.Errorf("the provider reads %s, where %q is mounted; want deploy/grafana/dashboards", dash.Providers[0].Options.Path, src)
		}
		var ds struct {
			Datasources []struct {
				URL string `json:"url"`
			} `json:"datasources"`
		}
		b, err = os.ReadFile(filepath.Join(prov, "datasources/prometheus.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &ds); err != nil || len(ds.Datasources) != 1 {
			t.Fatalf("datasources/prometheus.yaml: %v", err)
		}
		if u, err := url.Parse(ds.Datasources[0].URL); err != nil || u.Hostname() != "prometheus" {
			t.Errorf("the data source is %s, want the service prometheus", ds.Datasources[0].URL)
		}
	})
}

// mounts maps a service's container paths to the host paths bound there.
func mounts(s composeService) map[string]string {
	m := map[string]string{}
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && filepath.IsAbs(parts[0]) {
			m[parts[1]] = parts[0]
		}
	}
	return m
}
