package deploycheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/inferd/inferd/internal/config"
)

// minReplicas is the least replicas an autoscaler (an HPA or a KEDA ScaledObject) keeps
// of the Deployment, or 0 when none scales it.
func (m manifests) minReplicas(deployment string) int32 {
	for _, h := range m.hpas {
		if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == deployment && h.Spec.MinReplicas != nil {
			return *h.Spec.MinReplicas
		}
	}
	for _, so := range m.scaled {
		if so.Spec.ScaleTargetRef.Name == deployment && so.Spec.MinReplicaCount != nil {
			return *so.Spec.MinReplicaCount
		}
	}
	return 0
}

// TestKubernetesAutoscaling checks the autoscalers of deploy/kubernetes: the servers'
// HPA scales Deployment inferd on CPU; KEDA's ScaledObject scales inferd-worker on
// inferd_jobs_queued, with a cool-down; both keep two replicas at least and have room
// above; and each Deployment spreads its replicas over nodes.
func TestKubernetesAutoscaling(t *testing.T) {
	checkAutoscaling(t, readManifests(t))
}

func checkAutoscaling(t *testing.T, m manifests) {
	t.Helper()
	var hpa *autoscalingv2.HorizontalPodAutoscaler
	for _, h := range m.hpas {
		if h.Spec.ScaleTargetRef.Name == "inferd" {
			hpa = h
		}
	}
	if hpa == nil {
		t.Fatal("no HorizontalPodAutoscaler scales Deployment inferd")
	}
	if r := hpa.Spec.ScaleTargetRef; r.APIVersion != "apps/v1" || r.Kind != "Deployment" {
		t.Errorf("the HPA targets %s %s, want apps/v1 Deployment", r.APIVersion, r.Kind)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas <= *hpa.Spec.MinReplicas {
		t.Errorf("the HPA keeps %v to %d replicas: want at least 2, and room above", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	cpu := false
	for _, metric := range hpa.Spec.Metrics {
		if metric.Type == autoscalingv2.ResourceMetricSourceType && metric.Resource != nil && metric.Resource.Name == corev1.ResourceCPU &&
			metric.Resource.Target.Type == autoscalingv2.UtilizationMetricType && metric.Resource.Target.AverageUtilization != nil {
			cpu = true
			if u := *metric.Resource.Target.AverageUtilization; u < 30 || u > 90 {
				t.Errorf("the HPA aims at %d%% CPU: want 30 to 90", u)
			}
		}
	}
	if !cpu {
		t.Error("the HPA does not scale on CPU utilization")
	}

	var so *scaledObject
	for _, s := range m.scaled {
		if s.Spec.ScaleTargetRef.Name == "inferd-worker" {
			so = s
		}
	}
	if so == nil {
		t.Fatal("no KEDA ScaledObject scales Deployment inferd-worker")
	}
	if r := so.Spec.ScaleTargetRef; (r.APIVersion != "" && r.APIVersion != "apps/v1") || (r.Kind != "" && r.Kind != "Deployment") {
		t.Errorf("the ScaledObject targets %s %s, want a Deployment", r.APIVersion, r.Kind)
	}
	if so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount < 2 || so.Spec.MaxReplicaCount == nil || *so.Spec.MaxReplicaCount <= *so.Spec.MinReplicaCount {
		t.Errorf("the ScaledObject keeps %v to %v workers: want at least 2, and room above", so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount)
	}
	if so.Spec.CooldownPeriod == nil || *so.Spec.CooldownPeriod < 60 {
		t.Errorf("cooldownPeriod %v: want a minute at least, or workers come and go with each burst", so.Spec.CooldownPeriod)
	}
	depth := false
	for _, tr := range so.Spec.Triggers {
		if tr.Type == "prometheus" && strings.Contains(tr.Metadata["query"], "inferd_jobs_queued") && tr.Metadata["threshold"] != "" {
			depth = true
		}
	}
	if !depth {
		t.Error("the ScaledObject has no prometheus trigger on inferd_jobs_queued with a threshold")
	}

	for _, name := range []string{"inferd", "inferd-worker"} {
		checkSpread(t, m.deployment(t, name))
	}
}

// checkSpread fails a Deployment whose replicas may share a node: it needs a hard
// (DoNotSchedule) spread over kubernetes.io/hostname that selects its own pods.
func checkSpread(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
		if c.TopologyKey != corev1.LabelHostname || c.WhenUnsatisfiable != corev1.DoNotSchedule || c.MaxSkew != 1 {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			return
		}
	}
	t.Errorf("Deployment %s: no topology spread (maxSkew 1, DoNotSchedule) over %s selecting its pods", d.Name, corev1.LabelHostname)
}

// TestKubernetesNetworkPolicy checks that a NetworkPolicy admits to the Redis pods, on
// the client port, the servers' and the workers' pods and no other inferd pod; and that
// no policy lets a peer reach the servers' HTTP port and not their gRPC port.
func TestKubernetesNetworkPolicy(t *testing.T) {
	m := readManifests(t)
	checkNetworkPolicy(t, m, "redis")
	checkServerIngress(t, m)
	t.Run("gRPC beside HTTP", checkIngressGaps)
}

// checkNetworkPolicy returns the one policy over the Redis pods.
func checkNetworkPolicy(t *testing.T, m manifests, redisName string) *networkingv1.NetworkPolicy {
	t.Helper()
	redisPod := labels.Set{"app.kubernetes.io/name": redisName}
	var redis []*networkingv1.NetworkPolicy
	for _, np := range m.netpols {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil {
			t.Errorf("NetworkPolicy %s: %v", np.Name, err)
		} else if !sel.Empty() && sel.Matches(redisPod) {
			redis = append(redis, np)
		}
	}
	if len(redis) != 1 {
		t.Fatalf("%d of %d NetworkPolicies select the Redis pods %v (and not every pod), want 1", len(redis), len(m.netpols), redisPod)
	}
	np := redis[0]
	// Which pods each ingress rule lets reach the client port.
	reaches := func(pod labels.Set) bool {
		for _, rule := range np.Spec.Ingress {
			port := false
			for _, p := range rule.Ports {
				port = port || (p.Port != nil && p.Port.IntValue() == 6379)
			}
			if !port {
				continue
			}
			for _, peer := range rule.From {
				if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil {
					continue
				}
				if s, err := metav1.LabelSelectorAsSelector(peer.PodSelector); err == nil && s.Matches(pod) {
					return true
				}
			}
		}
		return false
	}
	for _, name := range []string{"inferd", "inferd-worker"} {
		d := m.deployment(t, name)
		if !reaches(labels.Set(d.Spec.Template.Labels)) {
			t.Errorf("the pods of %s (%v) may not reach Redis on 6379", name, d.Spec.Template.Labels)
		}
	}
	if reaches(labels.Set{"app.kubernetes.io/name": "something-else"}) || reaches(labels.Set{"app.kubernetes.io/name": "inferd"}) {
		t.Error("the policy lets pods other than the servers and workers reach Redis")
	}
	for _, rule := range np.Spec.Ingress {
		for _, peer := range rule.From {
			if peer.PodSelector == nil || len(peer.PodSelector.MatchLabels)+len(peer.PodSelector.MatchExpressions) == 0 {
				t.Errorf("an ingress peer %+v admits more than chosen pods", peer)
			}
		}
	}
	return np
}

// kustomize renders an overlay as kubectl kustomize does: with kubectl when it is
// installed, else with the kustomize library kubectl embeds (no Debian package ships
// kubectl).
func kustomize(t *testing.T, dir string) []byte {
	t.Helper()
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		cmd := exec.Command(kubectl, "kustomize", dir)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v", dir, err)
		}
		return out
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize %s: %v", dir, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatalf("kustomize %s: %v", dir, err)
	}
	return out
}

// TestKustomizeOverlays renders each overlay of deploy/kustomize (kubectl kustomize),
// decodes its output strictly, and checks it as the base is checked, plus what the
// overlay is for: QUEUE_SHARDS alike on servers and workers in cluster, the sentinel
// port for Sentinel, QUEUE_MIN_REPLICAS where a failover must lose no job, and the
// repository in a bucket in bucket (checkBucket); and the servers' gRPC readiness probe
// and ingress as in the base.
func TestKustomizeOverlays(t *testing.T) {
	img := readImage(t)
	for _, tt := range []struct {
		overlay, redisName, shards string
		minReplicas                bool
		sentinelPort               bool
		bucket                     bool // the model repository in a bucket (checkBucket)
	}{
		{overlay: "single", redisName: "redis"},
		{overlay: "sentinel", redisName: "redis", minReplicas: true, sentinelPort: true},
		{overlay: "cluster", redisName: "redis-cluster", shards: "6", minReplicas: true},
		{overlay: "bucket", redisName: "redis", bucket: true},
	} {
		t.Run(tt.overlay, func(t *testing.T) {
			out := kustomize(t, filepath.Join(root, "deploy", "kustomize", tt.overlay))
			var m manifests
			m.add(t, "kubectl kustomize "+tt.overlay, out)
			if t.Failed() {
				t.FailNow()
			}
			checkAutoscaling(t, m)
			redis := checkNetworkPolicy(t, m, tt.redisName)
			checkServerIngress(t, m)
			c := m.deployment(t, "inferd").Spec.Template.Spec.Containers[0]
			checkGRPCProbe(t, "inferd's readinessProbe", c.ReadinessProbe, c, grpcPort(t, settingOf(t, c, img)))
			env := func(d string) map[string]string {
				out := map[string]string{}
				for _, e := range m.deployment(t, d).Spec.Template.Spec.Containers[0].Env {
					out[e.Name] = e.Value
				}
				return out
			}
			server, worker := env("inferd"), env("inferd-worker")
			if server["QUEUE_SHARDS"] != tt.shards || worker["QUEUE_SHARDS"] != tt.shards {
				t.Errorf("QUEUE_SHARDS %q on the servers and %q on the workers, want %q on both", server["QUEUE_SHARDS"], worker["QUEUE_SHARDS"], tt.shards)
			}
			if got := server["QUEUE_MIN_REPLICAS"] != ""; got != tt.minReplicas {
				t.Errorf("QUEUE_MIN_REPLICAS set on the servers: %v, want %v", got, tt.minReplicas)
			}
			sentinel := false
			for _, rule := range redis.Spec.Ingress {
				for _, p := range rule.Ports {
					for _, peer := range rule.From {
						if p.Port != nil && p.Port.IntValue() == 26379 && peer.PodSelector != nil && peer.PodSelector.MatchLabels["app.kubernetes.io/name"] == "inferd" {
							sentinel = true
						}
					}
				}
			}
			if sentinel != tt.sentinelPort {
				t.Errorf("the servers and workers reach Sentinel's port: %v, want %v", sentinel, tt.sentinelPort)
			}
			if tt.bucket {
				checkBucket(t, m, img)
			} else if repo := settingOf(t, c, img)("MODELS_DIR"); config.RepositoryURL(repo) {
				t.Errorf("MODELS_DIR=%s: a bucket in an overlay whose checks do not say so", repo)
			}
		})
	}
}
