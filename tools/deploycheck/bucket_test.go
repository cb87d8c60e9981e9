package deploycheck

import (
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/inferd/inferd/internal/config"
)

// awsSettings are the AWS SDK's own variables, which inferd's S3 store reads through
// the SDK (docs/storage.md) and internal/config does not list.
var awsSettings = map[string]bool{
	"AWS_REGION": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true,
	"AWS_SESSION_TOKEN": true, "AWS_ENDPOINT_URL": true, "AWS_ENDPOINT_URL_S3": true,
	"AWS_MAX_ATTEMPTS": true, "AWS_PROFILE": true,
}

// awsSecrets are the variables that must come from a Secret, never a manifest's value.
var awsSecrets = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}

// checkBucket checks an overlay whose model repository is a bucket: servers and workers
// read the same bucket URL (MODELS_DIR), poll it, keep their cache on a writable volume
// of the pod's own, take the AWS keys from a Secret, need no init container, and mount
// nothing into the image's model directory (routing.yaml is the bucket's); and inferd's
// own parser accepts the settings.
func checkBucket(t *testing.T, m manifests, img image) {
	t.Helper()
	names := settingNames()
	var repos []string
	var awsEnv [][]corev1.EnvVar
	for _, d := range []string{"inferd", "inferd-worker"} {
		t.Run(d, func(t *testing.T) {
			pod := m.deployment(t, d).Spec.Template.Spec
			c := pod.Containers[0]
			setting := settingOf(t, c, img)
			if len(pod.InitContainers) > 0 {
				t.Errorf("%d init containers: the process syncs the bucket itself, with /health answering meanwhile", len(pod.InitContainers))
			}

			repo := setting("MODELS_DIR")
			if scheme, _, _ := strings.Cut(repo, "://"); !config.RepositoryURL(repo) || scheme != "s3" && scheme != "gs" {
				t.Errorf("MODELS_DIR=%s: want a bucket, s3://bucket/prefix or gs://bucket/prefix", repo)
			}
			repos = append(repos, repo)
			// A worker may sync on demand alone; a server must find new versions itself.
			poll, err := time.ParseDuration(setting("REPOSITORY_POLL_INTERVAL"))
			if err != nil || d == "inferd" && poll <= 0 {
				t.Errorf("REPOSITORY_POLL_INTERVAL=%s (%v): want the servers to poll the bucket", setting("REPOSITORY_POLL_INTERVAL"), err)
			}

			var aws []corev1.EnvVar
			for _, e := range c.Env {
				if !names[e.Name] && !awsSettings[e.Name] {
					t.Errorf("env %s is neither a setting of inferd (internal/config) nor one the AWS SDK reads", e.Name)
				}
				if strings.HasPrefix(e.Name, "AWS_") {
					aws = append(aws, e)
				}
			}
			awsEnv = append(awsEnv, aws)
			if strings.HasPrefix(repo, "s3://") {
				checkAWSKeys(t, c)
			}
			checkCache(t, pod, c, setting)

			// Nothing is mounted into the image's model directory: MODELS_DIR is not it.
			for _, vm := range c.VolumeMounts {
				if rel, err := filepath.Rel(img.env["MODELS_DIR"], vm.MountPath); err == nil && !strings.HasPrefix(rel, "..") {
					t.Errorf("%s is mounted into the image's model directory, which a bucket's MODELS_DIR does not read: routing.yaml lives in the bucket", vm.MountPath)
				}
			}
			if sa := pod.ServiceAccountName; sa != "" && !slices.ContainsFunc(m.serviceAccounts, func(s *corev1.ServiceAccount) bool { return s.Name == sa }) {
				t.Errorf("serviceAccountName %s: no such ServiceAccount in the overlay", sa)
			}

			// inferd's own parser takes the settings, the Secret's values stood in for.
			env := map[string]string{}
			for k, v := range img.env {
				env[k] = v
			}
			for _, e := range c.Env {
				env[e.Name] = e.Value
				if e.ValueFrom != nil {
					env[e.Name] = "from-a-secret"
					if e.Name == "QUEUE_URL" {
						env[e.Name] = "redis://redis:6379/0"
					}
				}
			}
			readFile := func(string) ([]byte, error) { return []byte("check-key:predict\n"), nil }
			if _, err := config.Load(func(k string) string { return env[k] }, readFile); err != nil {
				t.Errorf("inferd refuses the settings: %v", err)
			}
		})
	}
	if len(repos) == 2 && repos[0] != repos[1] {
		t.Errorf("MODELS_DIR %s on the servers, %s on the workers: both must read the same repository", repos[0], repos[1])
	}
	if len(awsEnv) == 2 && !reflect.DeepEqual(awsEnv[0], awsEnv[1]) {
		// Names only: a value may be a credential.
		names := func(env []corev1.EnvVar) (out []string) {
			for _, e := range env {
				out = append(out, e.Name)
			}
			return out
		}
		t.Errorf("the servers' AWS settings (%v) differ from the workers' (%v): both must read the bucket alike", names(awsEnv[0]), names(awsEnv[1]))
	}
	if m.configMap("inferd-routing") != nil {
		t.Error("the ConfigMap inferd-routing is rendered, but nothing reads it: routing.yaml lives in the bucket")
	}
}

// checkAWSKeys: the keys, when given, come from a Secret (the same one), never as a
// value in the manifest.
func checkAWSKeys(t *testing.T, c corev1.Container) {
	t.Helper()
	secrets := map[string]bool{}
	for _, name := range awsSecrets {
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
		if i < 0 {
			t.Errorf("%s is not set: give the keys from a Secret (or, with IRSA, remove both and say so in the overlay)", name)
			continue
		}
		e := c.Env[i]
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s: want valueFrom.secretKeyRef, never a value in the manifest", name)
			continue
		}
		if ptrValue(e.ValueFrom.SecretKeyRef.Optional) {
			t.Errorf("%s: the Secret's key is optional, so a missing one starts a pod that the bucket refuses", name)
		}
		secrets[e.ValueFrom.SecretKeyRef.Name] = true
	}
	if len(secrets) > 1 {
		t.Errorf("the keys come from the Secrets %v: want one", secrets)
	}
}

// checkCache: MODEL_CACHE_DIR is on a writable volume of the pod's own (the root file
// system is read-only, and a cache is one process's), an emptyDir or a generic
// ephemeral volume, never one claim the replicas would share; MODEL_CACHE_MAX_BYTES
// keeps it below an emptyDir's sizeLimit, past which the kubelet evicts the pod.
func checkCache(t *testing.T, pod corev1.PodSpec, c corev1.Container, setting func(string) string) {
	t.Helper()
	dir := setting("MODEL_CACHE_DIR")
	if dir == "" {
		t.Error("MODEL_CACHE_DIR is not set: a bucket needs a cache")
		return
	}
	var mount *corev1.VolumeMount
	for i, vm := range c.VolumeMounts {
		if rel, err := filepath.Rel(vm.MountPath, dir); err == nil && !strings.HasPrefix(rel, "..") && (mount == nil || len(vm.MountPath) > len(mount.MountPath)) {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		t.Errorf("MODEL_CACHE_DIR=%s: no volume is mounted there, and the root file system is read-only", dir)
		return
	}
	if mount.ReadOnly || mount.SubPath != "" {
		t.Errorf("MODEL_CACHE_DIR=%s: mounted readOnly %v, subPath %q: want the volume writable, as a directory", dir, mount.ReadOnly, mount.SubPath)
	}
	v := volume(pod, mount.Name)
	switch {
	case v == nil:
		t.Errorf("volume mount %s: no volume of that name", mount.Name)
	case v.PersistentVolumeClaim != nil:
		t.Errorf("volume %s: the claim %s would be shared by every replica, and a cache is one process's: use an emptyDir or a generic ephemeral volume", v.Name, v.PersistentVolumeClaim.ClaimName)
	case v.EmptyDir != nil:
		if limit := v.EmptyDir.SizeLimit; limit != nil {
			bound, err := strconv.ParseInt(setting("MODEL_CACHE_MAX_BYTES"), 10, 64)
			if err != nil || bound <= 0 || resource.NewQuantity(bound, resource.BinarySI).Cmp(*limit) >= 0 {
				t.Errorf("MODEL_CACHE_MAX_BYTES=%s with an emptyDir of sizeLimit %s: bound the cache below it, or the kubelet evicts the pod", setting("MODEL_CACHE_MAX_BYTES"), limit.String())
			}
		}
	case v.Ephemeral != nil:
	default:
		t.Errorf("volume %s: want an emptyDir or a generic ephemeral volume for the cache", v.Name)
	}
}
