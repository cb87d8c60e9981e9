package deploycheck

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/repository"
)

// manifests are the objects of deploy/kubernetes, by kind.
type manifests struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	pdbs        []*policyv1.PodDisruptionBudget
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	netpols     []*networkingv1.NetworkPolicy
	scaled      []*scaledObject
	// serviceAccounts: an overlay's (bucket), for the cloud's identity.
	serviceAccounts []*corev1.ServiceAccount
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// decode decodes one YAML document strictly into the Kubernetes type of its kind: an
// unknown or duplicated field, or a value of the wrong type, is an error.
func decode(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		obj = &appsv1.Deployment{}
	case "v1 Service":
		obj = &corev1.Service{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 ServiceAccount":
		obj = &corev1.ServiceAccount{}
	case "policy/v1 PodDisruptionBudget":
		obj = &policyv1.PodDisruptionBudget{}
	case "autoscaling/v2 HorizontalPodAutoscaler":
		obj = &autoscalingv2.HorizontalPodAutoscaler{}
	case "networking.k8s.io/v1 NetworkPolicy":
		obj = &networkingv1.NetworkPolicy{}
	case "keda.sh/v1alpha1 ScaledObject":
		// A custom resource: no Go type in k8s.io/api, so KEDA's published schema.
		return decodeScaledObject(doc)
	default:
		return nil, fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", tm.APIVersion, tm.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func readManifests(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "deploy/kubernetes/*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	var m manifests
	for _, file := range files {
		// kustomize's own file, which kubectl kustomize reads (TestKustomizeOverlays).
		if filepath.Base(file) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m.add(t, filepath.Base(file), b)
	}
	if t.Failed() {
		t.FailNow()
	}
	return m
}

// add decodes the documents of one file (or kubectl kustomize's output) into m.
func (m *manifests) add(t *testing.T, name string, b []byte) {
	t.Helper()
	for i, doc := range docSeparator.Split(string(b), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		obj, err := decode([]byte(doc))
		if err != nil {
			t.Errorf("%s, document %d: %v", name, i+1, err)
			continue
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			m.deployments = append(m.deployments, o)
		case *corev1.Service:
			m.services = append(m.services, o)
		case *corev1.ConfigMap:
			m.configMaps = append(m.configMaps, o)
		case *policyv1.PodDisruptionBudget:
			m.pdbs = append(m.pdbs, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			m.hpas = append(m.hpas, o)
		case *networkingv1.NetworkPolicy:
			m.netpols = append(m.netpols, o)
		case *scaledObject:
			m.scaled = append(m.scaled, o)
		case *corev1.ServiceAccount:
			m.serviceAccounts = append(m.serviceAccounts, o)
		}
	}
}

func (m manifests) deployment(t *testing.T, name string) *appsv1.Deployment {
	t.Helper()
	for _, d := range m.deployments {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("deploy/kubernetes has no Deployment %s", name)
	return nil
}

func (m manifests) configMap(name string) *corev1.ConfigMap {
	for _, c := range m.configMaps {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestKubernetesStrictDecoding shows the decoding is strict: a misspelt field, a
// duplicated one and a wrong type each fail it.
func TestKubernetesStrictDecoding(t *testing.T) {
	for _, tt := range []struct{ name, doc string }{
		{"misspelt field", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replica: 2\n"},
		{"duplicated field", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n"},
		{"wrong type", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec:\n  selector: all\n"},
		{"unknown kind", "apiVersion: v1\nkind: Pod\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decode([]byte(tt.doc)); err == nil {
				t.Errorf("decoded without an error:\n%s", tt.doc)
			}
		})
	}
}

// settingOf is the value of a setting in container c: its env, else the image's ENV,
// else the default.
func settingOf(t *testing.T, c corev1.Container, img image) func(string) string {
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		if v, ok := img.env[name]; ok {
			return v
		}
		return settingDefault(t, name)
	}
}

// TestKubernetesManifests decodes deploy/kubernetes strictly with the Kubernetes API
// types and checks what a cluster would only find out at run time: the probes, ports,
// resources, settings, secrets and config maps of both Deployments, and what the
// Service and the disruption budgets select and expose.
func TestKubernetesManifests(t *testing.T) {
	m := readManifests(t)
	img := readImage(t)
	names := settingNames()

	for _, tt := range []struct {
		deployment, command, portVar string
		keys                         bool // serves the API, so it holds the API keys
		grpc                         bool // serves gRPC too (the worker has no gRPC listener)
	}{
		{"inferd", "", "PORT", true, true},
		{"inferd-worker", "inferd-worker", "WORKER_PORT", false, false},
	} {
		t.Run(tt.deployment, func(t *testing.T) {
			d := m.deployment(t, tt.deployment)
			pod := d.Spec.Template.Spec
			sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
			if err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				t.Errorf("the selector %v does not select the pod template's labels %v (%v)", d.Spec.Selector, d.Spec.Template.Labels, err)
			}
			// An autoscaler owns the count (TestKubernetesAutoscaling), else at least 2.
			if min := m.minReplicas(d.Name); d.Spec.Replicas != nil && min > 0 {
				t.Errorf("replicas %d and an autoscaler: each apply would reset what it chose", *d.Spec.Replicas)
			} else if d.Spec.Replicas == nil && min < 2 || d.Spec.Replicas != nil && *d.Spec.Replicas < 2 {
				t.Errorf("replicas %v, autoscaler minimum %d: want at least 2", d.Spec.Replicas, min)
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(pod.Containers))
			}
			c := pod.Containers[0]
			if got := strings.Join(c.Command, " "); got != tt.command {
				t.Errorf("command %q, want %q (the image's entrypoint is inferd)", got, tt.command)
			}

			env := map[string]string{}
			for _, e := range c.Env {
				if !names[e.Name] {
					t.Errorf("env %s is no setting of inferd (internal/config)", e.Name)
				}
				if _, dup := env[e.Name]; dup {
					t.Errorf("env %s is set twice", e.Name)
				}
				env[e.Name] = e.Value
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					ref := e.ValueFrom.ConfigMapKeyRef
					if cm := m.configMap(ref.Name); cm == nil || cm.Data[ref.Key] == "" {
						t.Errorf("env %s names the key %s of ConfigMap %s, which these manifests do not hold", e.Name, ref.Key, ref.Name)
					}
				}
			}
			setting := settingOf(t, c, img)

			// Probes: /health for liveness (and start-up), /ready for readiness, on the
			// port the process listens on. A server's readiness is asked of its gRPC
			// health service instead, which reports what /ready answers: one probe then
			// proves the gRPC port as startup and liveness prove the HTTP one. Liveness
			// stays on /health, which answers while the server loads and drains, when
			// gRPC's health reports NOT_SERVING.
			port, err := strconv.Atoi(setting(tt.portVar))
			if err != nil {
				t.Fatalf("%s: %v", tt.portVar, err)
			}
			ready := "/ready"
			if tt.grpc {
				ready = "" // the gRPC health service
				checkGRPCProbe(t, "readinessProbe", c.ReadinessProbe, c, grpcPort(t, setting))
			} else if containerPort(c, "grpc") != 0 {
				t.Errorf("a container port grpc: %s has no gRPC listener", tt.deployment)
			}
			probes := []struct {
				name, path string
				probe      *corev1.Probe
			}{
				{"livenessProbe", "/health", c.LivenessProbe},
				{"readinessProbe", ready, c.ReadinessProbe},
				{"startupProbe", "/health", c.StartupProbe},
			}
			for _, p := range probes {
				if p.path == "" {
					continue
				}
				if p.probe == nil || p.probe.HTTPGet == nil || probeHandlers(p.probe) != 1 {
					t.Errorf("%s: want an HTTP GET of %s alone", p.name, p.path)
					continue
				}
				if p.probe.HTTPGet.Path != p.path {
					t.Errorf("%s: GET %s, want %s", p.name, p.probe.HTTPGet.Path, p.path)
				}
				if got := containerPort(c, p.probe.HTTPGet.Port.String()); got != port {
					t.Errorf("%s: port %s is container port %d; %s is %d", p.name, p.probe.HTTPGet.Port.String(), got, tt.portVar, port)
				}
			}

			// Resources: requests and limits of CPU and memory, requests within limits.
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, okReq := c.Resources.Requests[r]
				lim, okLim := c.Resources.Limits[r]
				if !okReq || !okLim || req.Sign() <= 0 || req.Cmp(lim) > 0 {
					t.Errorf("resources %s: requests %v, limits %v: want both, requests no more than limits", r, req.String(), lim.String())
				}
			}

			// The keys come from a Secret through API_KEYS_FILE, never inline; a worker,
			// which serves no API, is given neither.
			if _, inline := env["API_KEYS"]; inline {
				t.Error("API_KEYS is set inline: take the keys from a Secret through API_KEYS_FILE")
			}
			switch file := env["API_KEYS_FILE"]; {
			case !tt.keys && file != "":
				t.Errorf("API_KEYS_FILE=%s: a worker serves no API and needs no keys", file)
			case !tt.keys:
				for _, v := range pod.Volumes {
					if v.Secret != nil && v.Secret.SecretName == "inferd-api-keys" {
						t.Errorf("volume %s: a worker is given the API keys' Secret it does not use", v.Name)
					}
				}
			case file == "":
				t.Error("API_KEYS_FILE is not set")
			default:
				mode, err := fromSecret(pod, c, file)
				if err != nil {
					t.Errorf("API_KEYS_FILE=%s: %v", file, err)
					break
				}
				// The image's user must read it, and no one else need.
				if err := readableBy(pod.SecurityContext, mode); err != nil {
					t.Errorf("API_KEYS_FILE=%s: %v", file, err)
				}
				if mode&0o004 != 0 {
					t.Errorf("API_KEYS_FILE=%s has mode %04o: any user of the pod may read the keys; give the Secret volume defaultMode 0440 (with fsGroup)", file, mode)
				}
			}

			// Every mount has its volume; a ConfigMap volume names a ConfigMap of these
			// manifests, and a subPath one of its keys.
			for _, vm := range c.VolumeMounts {
				v := volume(pod, vm.Name)
				switch {
				case v == nil:
					t.Errorf("volume mount %s: no volume of that name", vm.Name)
				case v.ConfigMap != nil:
					cm := m.configMap(v.ConfigMap.Name)
					if cm == nil {
						t.Errorf("volume %s: no ConfigMap %s in deploy/kubernetes", v.Name, v.ConfigMap.Name)
					} else if _, ok := cm.Data[vm.SubPath]; vm.SubPath != "" && !ok {
						t.Errorf("volume mount %s: ConfigMap %s has no key %s", vm.Name, cm.Name, vm.SubPath)
					}
				}
			}

			// Non-root, as the image's user.
			uid, _, _ := strings.Cut(img.user, ":")
			if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || strconv.FormatInt(*sc.RunAsUser, 10) != uid {
				t.Errorf("the pod's securityContext must say runAsNonRoot and runAsUser %s (the image's USER)", uid)
			}

			// Kubernetes must not kill the process before SHUTDOWN_TIMEOUT has run out.
			shutdown, err := time.ParseDuration(setting("SHUTDOWN_TIMEOUT"))
			if err != nil {
				t.Fatal(err)
			}
			if pod.TerminationGracePeriodSeconds == nil || time.Duration(*pod.TerminationGracePeriodSeconds)*time.Second <= shutdown {
				t.Errorf("terminationGracePeriodSeconds %v: want more than SHUTDOWN_TIMEOUT (%v)", pod.TerminationGracePeriodSeconds, shutdown)
			}
		})
	}

	server := m.deployment(t, "inferd")
	worker := m.deployment(t, "inferd-worker")
	selects := func(sel *metav1.LabelSelector, d *appsv1.Deployment) bool {
		s, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && !s.Empty() && s.Matches(labels.Set(d.Spec.Template.Labels))
	}

	t.Run("Service", func(t *testing.T) {
		if len(m.services) != 1 {
			t.Fatalf("%d Services, want 1 (the servers')", len(m.services))
		}
		svc := m.services[0]
		sel := &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}
		if !selects(sel, server) || selects(sel, worker) {
			t.Errorf("the selector %v must select the servers' pods and not the workers'", svc.Spec.Selector)
		}
		c := server.Spec.Template.Spec.Containers[0]
		for _, p := range svc.Spec.Ports {
			if containerPort(c, p.TargetPort.String()) == 0 {
				t.Errorf("port %s: targetPort %s is no port of the server container", p.Name, p.TargetPort.String())
			}
		}
		// HTTP on 80; gRPC on 8001, Triton's gRPC port where its clients look, marked as
		// HTTP/2 over cleartext for the gateways and meshes that read appProtocol.
		setting := settingOf(t, c, img)
		httpPort, err := strconv.Atoi(setting("PORT"))
		if err != nil {
			t.Fatalf("PORT: %v", err)
		}
		for _, want := range []struct {
			name        string
			port        int32
			target      int // the port the server listens on
			appProtocol string
		}{
			{"http", 80, httpPort, ""},
			{"grpc", 8001, grpcPort(t, setting), "kubernetes.io/h2c"},
		} {
			t.Run(want.name, func(t *testing.T) {
				i := slices.IndexFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == want.name })
				if i < 0 {
					t.Fatalf("no port %s", want.name)
				}
				p := svc.Spec.Ports[i]
				if p.Port != want.port {
					t.Errorf("port %d, want %d", p.Port, want.port)
				}
				if got := containerPort(c, p.TargetPort.String()); got != want.target {
					t.Errorf("targetPort %s is container port %d; the server listens on %d", p.TargetPort.String(), got, want.target)
				}
				if got := ptrValue(p.AppProtocol); got != want.appProtocol {
					t.Errorf("appProtocol %q, want %q", got, want.appProtocol)
				}
			})
		}
	})

	t.Run("PodDisruptionBudget", func(t *testing.T) {
		for _, d := range []*appsv1.Deployment{server, worker} {
			var budgets []string
			for _, p := range m.pdbs {
				if selects(p.Spec.Selector, d) {
					budgets = append(budgets, p.Name)
					// The fewest replicas there may be: an autoscaler's minimum.
					least := m.minReplicas(d.Name)
					if d.Spec.Replicas != nil {
						least = *d.Spec.Replicas
					}
					if p.Spec.MinAvailable != nil && p.Spec.MinAvailable.IntValue() >= int(least) {
						t.Errorf("%s: minAvailable %s leaves no pod of %s to evict", p.Name, p.Spec.MinAvailable.String(), d.Name)
					}
				}
			}
			if len(budgets) != 1 {
				t.Errorf("Deployment %s is covered by %d PodDisruptionBudgets %v, want 1", d.Name, len(budgets), budgets)
			}
		}
	})

	// The routing rules mounted from the ConfigMap are read by the model repository
	// code itself, over a copy of models/'s configuration.
	t.Run("routing", func(t *testing.T) {
		modelsDir := img.env["MODELS_DIR"]
		dir := copyModelConfigs(t)
		c := server.Spec.Template.Spec.Containers[0]
		mounted := 0
		for _, vm := range c.VolumeMounts {
			v := volume(server.Spec.Template.Spec, vm.Name)
			rel, err := filepath.Rel(modelsDir, vm.MountPath)
			if v == nil || v.ConfigMap == nil || err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			if path.Base(vm.MountPath) != repository.RoutingFile || vm.SubPath == "" {
				t.Errorf("%s: a ConfigMap mounted into MODELS_DIR must be one key mounted as <model>/%s", vm.MountPath, repository.RoutingFile)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.Dir(rel))); err != nil {
				t.Errorf("%s: models/ has no model %s", vm.MountPath, filepath.Dir(rel))
				continue
			}
			data := m.configMap(v.ConfigMap.Name).Data[vm.SubPath]
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			mounted++
		}
		if mounted == 0 {
			t.Fatal("the server mounts no routing.yaml from a ConfigMap")
		}
		// The keys are the server's alone; what lies in the model repository must match.
		inRepo := func(mounts []corev1.VolumeMount) []corev1.VolumeMount {
			return slices.DeleteFunc(slices.Clone(mounts), func(vm corev1.VolumeMount) bool {
				rel, err := filepath.Rel(modelsDir, vm.MountPath)
				return err != nil || strings.HasPrefix(rel, "..")
			})
		}
		if !reflect.DeepEqual(inRepo(c.VolumeMounts), inRepo(worker.Spec.Template.Spec.Containers[0].VolumeMounts)) {
			t.Error("the worker's mounts into MODELS_DIR differ from the server's: both must read the same model repository")
		}
		src := repository.New(repository.Options{Dir: dir, Backends: backend.Catalogue{onnx.NewBackend(onnx.New(onnx.Options{})), xgboost.Backend{}, echo.Backend{}}})
		specs, err := src.Models(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range specs {
			for _, v := range s.Versions {
				if v.Err != nil {
					t.Errorf("%s %s: %v", s.Name, v.Version, v.Err)
				}
			}
		}
	})
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// containerPort resolves a probe's or a Service's port, a number or a name, to the
// container's port number; 0 when the container has no such port.
func containerPort(c corev1.Container, port string) int {
	for _, p := range c.Ports {
		if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
			return int(p.ContainerPort)
		}
	}
	return 0
}

func volume(pod corev1.PodSpec, name string) *corev1.Volume {
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == name {
			return &pod.Volumes[i]
		}
	}
	return nil
}

// fromSecret checks that file is a file of a Secret volume mounted into c, and
// returns the mode the Secret volume gives it (its item's mode, else the volume's
// defaultMode, else the API's default 0644).
func fromSecret(pod corev1.PodSpec, c corev1.Container, file string) (os.FileMode, error) {
	for _, vm := range c.VolumeMounts {
		rel, err := filepath.Rel(vm.MountPath, file)
		if err != nil || strings.HasPrefix(rel, "..") || rel == "." {
			continue
		}
		v := volume(pod, vm.Name)
		if v == nil || v.Secret == nil {
			return 0, fmt.Errorf("the volume mounted at %s is not a Secret", vm.MountPath)
		}
		if vm.SubPath != "" {
			return 0, fmt.Errorf("mount the Secret as a directory, not by subPath, so that a rotated key reaches the pod")
		}
		mode := os.FileMode(corev1.SecretVolumeSourceDefaultMode)
		if v.Secret.DefaultMode != nil {
			mode = os.FileMode(*v.Secret.DefaultMode)
		}
		if len(v.Secret.Items) == 0 {
			return mode, nil // every key is a file
		}
		for _, it := range v.Secret.Items {
			if it.Path == rel {
				if it.Mode != nil {
					mode = os.FileMode(*it.Mode)
				}
				return mode, nil
			}
		}
		return 0, fmt.Errorf("Secret %s's items put no file at %s", v.Secret.SecretName, rel)
	}
	return 0, fmt.Errorf("no volume is mounted where the file is")
}

// readableBy says whether the pod's user reads a file of a Secret volume with mode.
// The kubelet writes such files owned by root; with the pod's fsGroup it gives them
// that group and adds read for it (0440, the volume being read-only), and the
// processes of the pod have fsGroup among their groups.
func readableBy(sc *corev1.PodSecurityContext, mode os.FileMode) error {
	var uid int64
	groups := []int64{0}
	var fsGroup *int64
	if sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			groups = []int64{*sc.RunAsGroup}
		}
		groups = append(groups, sc.SupplementalGroups...)
		if sc.FSGroup != nil {
			fsGroup = sc.FSGroup
			groups = append(groups, *sc.FSGroup)
		}
	}
	group := int64(0)
	if fsGroup != nil {
		group = *fsGroup
		mode |= 0o440
	}
	switch {
	case uid == 0, mode&0o004 != 0:
		return nil
	case slices.Contains(groups, group) && mode&0o040 != 0:
		return nil
	}
	return fmt.Errorf("mode %04o, owned by root and group %d: the pod's user %d (groups %v) cannot read it; set the pod's securityContext.fsGroup to the image's group", mode, group, uid, groups)
}

// TestSecretReadable: how a Secret volume's mode and the pod's fsGroup decide whether
// the image's user reads the keys.
func TestSecretReadable(t *testing.T) {
	id := func(n int64) *int64 { return &n }
	user := &corev1.PodSecurityContext{RunAsUser: id(10001), RunAsGroup: id(10001)}
	withFS := user.DeepCopy()
	withFS.FSGroup = id(10001)
	for _, tc := range []struct {
		name string
		sc   *corev1.PodSecurityContext
		mode os.FileMode
		ok   bool
	}{
		{"fsGroup, 0440", withFS, 0o440, true},
		{"fsGroup, 0400: the kubelet adds group read", withFS, 0o400, true},
		{"no fsGroup, the default 0644", user, 0o644, true},
		{"no fsGroup, 0400", user, 0o400, false},
		{"no fsGroup, 0440", user, 0o440, false},
		{"root", nil, 0o400, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := readableBy(tc.sc, tc.mode); (err == nil) != tc.ok {
				t.Errorf("readableBy: %v, want readable %v", err, tc.ok)
			}
		})
	}
}

// copyModelConfigs copies models/ without its artifacts (model.yaml and routing.yaml
// files only) into a temporary directory: enough to list the repository.
func copyModelConfigs(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(root, "models")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(p, ".yaml") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
