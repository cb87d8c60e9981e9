package deploycheck

import (
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	pb "github.com/inferd/inferd/gen/inference"
)

// grpcHealthServices are the names under which the server's gRPC health service reports
// its readiness: the whole server ("") and the inference service.
var grpcHealthServices = []string{"", pb.GRPCInferenceService_ServiceDesc.ServiceName}

// grpcPort is the port of the server's gRPC listener as its settings give it:
// GRPC_LISTEN_ADDR's port when that is set (it overrides), else GRPC_PORT; 0 when
// gRPC is off.
func grpcPort(t *testing.T, setting func(string) string) int {
	t.Helper()
	port := setting("GRPC_PORT")
	if addr := setting("GRPC_LISTEN_ADDR"); addr != "" {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("GRPC_LISTEN_ADDR=%s: %v", addr, err)
		}
		port = p
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatalf("the gRPC port %q: %v", port, err)
	}
	return n
}

// probeHandlers counts a probe's handlers: the API server refuses a probe with
// other than one, which strict decoding does not see.
func probeHandlers(p *corev1.Probe) int {
	n := 0
	for _, set := range []bool{p.Exec != nil, p.HTTPGet != nil, p.TCPSocket != nil, p.GRPC != nil} {
		if set {
			n++
		}
	}
	return n
}

// checkGRPCProbe checks a probe that asks the server's gRPC health service: its one
// handler, on the container's port named grpc, which is where the settings have the
// gRPC listener, for a service name that the health service reports.
func checkGRPCProbe(t *testing.T, name string, p *corev1.Probe, c corev1.Container, port int) {
	t.Helper()
	if p == nil || p.GRPC == nil || probeHandlers(p) != 1 {
		t.Errorf("%s: want a gRPC health check alone", name)
		return
	}
	if port == 0 {
		t.Errorf("%s: a gRPC probe, and GRPC_PORT=0 turns the gRPC listener off", name)
	}
	if int(p.GRPC.Port) != port || containerPort(c, "grpc") != port {
		t.Errorf("%s: gRPC port %d, container port grpc %d; the settings have the gRPC listener on %d", name, p.GRPC.Port, containerPort(c, "grpc"), port)
	}
	service := ""
	if p.GRPC.Service != nil {
		service = *p.GRPC.Service
	}
	if !slices.Contains(grpcHealthServices, service) {
		t.Errorf("%s: service %q, which the health service does not report (it reports %q)", name, service, grpcHealthServices)
	}
}

// servedPort is a port the server listens on: its container port's name and number.
type servedPort struct {
	name   string
	number int32
}

// admits says whether an ingress rule admits TCP connections to port.
func admits(rule networkingv1.NetworkPolicyIngressRule, port servedPort) bool {
	if len(rule.Ports) == 0 {
		return true // every port
	}
	for _, p := range rule.Ports {
		switch {
		case p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP:
		case p.Port == nil:
			return true // every TCP port
		case p.Port.Type == intstr.String:
			if p.Port.StrVal == port.name {
				return true
			}
		case p.EndPort != nil:
			if port.number >= p.Port.IntVal && port.number <= *p.EndPort {
				return true
			}
		case p.Port.IntVal == port.number:
			return true
		}
	}
	return false
}

// ingressGaps finds the peers that the policies selecting pod admit to its HTTP port but
// not to its gRPC port. Policies add up, so a rule for gRPC may come from another policy;
// it must name the same peers.
func ingressGaps(policies []*networkingv1.NetworkPolicy, pod labels.Set, http, grpc servedPort) []string {
	var rules []networkingv1.NetworkPolicyIngressRule
	var names []string
	for _, np := range policies {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(pod) {
			continue
		}
		// Ingress is restricted when the policy says so, or says nothing of its types.
		if len(np.Spec.PolicyTypes) > 0 && !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			continue
		}
		for range np.Spec.Ingress {
			names = append(names, np.Name)
		}
		rules = append(rules, np.Spec.Ingress...)
	}
	samePeers := func(a, b []networkingv1.NetworkPolicyPeer) bool {
		return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
	}
	var gaps []string
	for i, rule := range rules {
		if !admits(rule, http) {
			continue
		}
		if !slices.ContainsFunc(rules, func(r networkingv1.NetworkPolicyIngressRule) bool {
			return admits(r, grpc) && samePeers(r.From, rule.From)
		}) {
			from, _ := json.Marshal(rule.From)
			gaps = append(gaps, fmt.Sprintf("NetworkPolicy %s admits the peers %s to %s (%d) and not to %s (%d)", names[i], from, http.name, http.number, grpc.name, grpc.number))
		}
	}
	return gaps
}

// checkServerIngress fails where a NetworkPolicy lets a peer reach the servers' HTTP
// port and not their gRPC port.
func checkServerIngress(t *testing.T, m manifests) {
	t.Helper()
	d := m.deployment(t, "inferd")
	c := d.Spec.Template.Spec.Containers[0]
	http := servedPort{"http", int32(containerPort(c, "http"))}
	grpc := servedPort{"grpc", int32(containerPort(c, "grpc"))}
	for _, gap := range ingressGaps(m.netpols, labels.Set(d.Spec.Template.Labels), http, grpc) {
		t.Error(gap)
	}
}

// checkIngressGaps: which policies over the servers' pods let a peer reach HTTP and not
// gRPC (a part of TestKubernetesNetworkPolicy).
func checkIngressGaps(t *testing.T) {
	server := labels.Set{"app.kubernetes.io/name": "inferd", "app.kubernetes.io/component": "server"}
	http, grpc := servedPort{"http", 8080}, servedPort{"grpc", 8001}
	port := func(p intstr.IntOrString) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Port: &p}
	}
	udp := corev1.ProtocolUDP
	end := int32(8100)
	gateway := []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gateway"}}}}
	monitoring := []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "monitoring"}}}}
	policy := func(name string, types []networkingv1.PolicyType, rules ...networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
		np := &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "inferd"}},
			PolicyTypes: types, Ingress: rules,
		}}
		np.Name = name
		return np
	}
	rule := func(from []networkingv1.NetworkPolicyPeer, ports ...networkingv1.NetworkPolicyPort) networkingv1.NetworkPolicyIngressRule {
		return networkingv1.NetworkPolicyIngressRule{From: from, Ports: ports}
	}
	redis := policy("redis-clients", nil, rule(gateway, port(intstr.FromInt32(6379))))
	redis.Spec.PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "redis"}
	ingress := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}

	for _, tt := range []struct {
		name     string
		policies []*networkingv1.NetworkPolicy
		gaps     int
	}{
		{"no policy selects the servers", []*networkingv1.NetworkPolicy{redis}, 0},
		{"8080 alone", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, port(intstr.FromInt32(8080))))}, 1},
		{"8080 and 8001 in one rule", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, port(intstr.FromInt32(8080)), port(intstr.FromInt32(8001))))}, 0},
		{"the ports by name", []*networkingv1.NetworkPolicy{policy("a", nil, rule(gateway, port(intstr.FromString("http")), port(intstr.FromString("grpc"))))}, 0},
		{"8001 from other peers", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, port(intstr.FromInt32(8080))), rule(monitoring, port(intstr.FromInt32(8001))))}, 1},
		{"8001 over UDP", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, port(intstr.FromInt32(8080)), networkingv1.NetworkPolicyPort{Protocol: &udp, Port: ptr(intstr.FromInt32(8001))}))}, 1},
		{"8001 in another policy, same peers", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, port(intstr.FromInt32(8080)))), policy("b", ingress, rule(gateway, port(intstr.FromInt32(8001))))}, 0},
		{"every port", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway))}, 0},
		{"a range 8000 to 8100", []*networkingv1.NetworkPolicy{policy("a", ingress, rule(gateway, networkingv1.NetworkPolicyPort{Port: ptr(intstr.FromInt32(8000)), EndPort: &end}))}, 0},
		{"egress only", []*networkingv1.NetworkPolicy{policy("a", []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, rule(gateway, port(intstr.FromInt32(8080))))}, 0},
		{"deny all ingress", []*networkingv1.NetworkPolicy{policy("a", ingress)}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if gaps := ingressGaps(tt.policies, server, http, grpc); len(gaps) != tt.gaps {
				t.Errorf("%d gaps, want %d: %q", len(gaps), tt.gaps, gaps)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
