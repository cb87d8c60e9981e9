# shellcheck shell=bash
# Sourced by tools/node.sh and tools/onnxruntime.sh, which take a prebuilt binary out of
# an npm package without installing the package. The sourcing script defines die.

# npm_arch prints this machine's architecture as npm packages name it (x64, arm64),
# or nothing for one they do not ship.
npm_arch() {
	case "$(uname -m)" in
	x86_64 | amd64) echo x64 ;;
	aarch64 | arm64) echo arm64 ;;
	esac
}

# npm_pack_member PACKAGE@VERSION MEMBER DIR downloads the package's tarball into DIR
# and extracts MEMBER from it to DIR/MEMBER. npm pack only downloads the tarball: no
# install scripts run, no node_modules.
npm_pack_member() {
	local spec=$1 member=$2 dir=$3 tgz
	command -v npm >/dev/null || die "npm is needed to fetch $spec (apt-get install -y npm)"
	command -v tar >/dev/null || die "tar is needed"
	(cd "$dir" && npm pack --loglevel=error "$spec" >"$dir/pack.out") || die "npm pack $spec failed"
	tgz="$dir/$(tail -n 1 "$dir/pack.out")"
	[[ -f "$tgz" ]] || die "npm pack did not produce a tarball (said: $(cat "$dir/pack.out"))"
	tar -xzf "$tgz" -C "$dir" "$member" || die "$member is not in $spec"
}
