#!/bin/bash
# Real clients through the proxy (issue 28), against local servers only:
# git clone over HTTP from git http-backend (CGI), pip install from a local
# simple index, npm install from a local registry (package documents and
# tarballs served as files). Each reaches its one allowed host through
# bwgate's proxy by the variables bwgate sets, nothing else.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# The system's python (with its pip), visible inside the sandbox.
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ] || ! command -v jq >/dev/null; then
	skip "real clients through the proxy" "python3 or jq not installed"
	done_testing; exit
fi
W="$T/www"
mkdir -p "$W/cgi-bin" "$W/simple/demo-pkg" "$W/npm"

# git: a bare repository behind git http-backend.
GIT_OK=false
if command -v git >/dev/null && [ -x "$(git --exec-path)/git-http-backend" ]; then
	git init -q --bare "$T/repos/demo.git"
	git init -q "$T/src"
	echo "cloned through the proxy" > "$T/src/README"
	git -C "$T/src" add README
	git -C "$T/src" -c user.name=t -c user.email=t@t commit -qm one
	git -C "$T/src" push -q "$T/repos/demo.git" HEAD:refs/heads/main
	git -C "$T/repos/demo.git" -c safe.directory='*' symbolic-ref HEAD \
	    refs/heads/main
	cat > "$W/cgi-bin/git" <<EOF
#!/bin/sh
export GIT_PROJECT_ROOT='$T/repos' GIT_HTTP_EXPORT_ALL=1
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' 
exec '$(git --exec-path)/git-http-backend'
EOF
	chmod +x "$W/cgi-bin/git"
	GIT_OK=true
fi

# pip: one wheel in a simple index.
"$PY" - "$W" <<'PYEOF'
import base64, hashlib, sys, zipfile
w = sys.argv[1]
name = "demo_pkg-1.0-py3-none-any.whl"
files = {
    "demo_pkg/__init__.py": b"WHERE = 'installed through the proxy'\n",
    "demo_pkg-1.0.dist-info/METADATA":
        b"Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n",
    "demo_pkg-1.0.dist-info/WHEEL":
        b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
for p, data in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (p, h, len(data))
record += "demo_pkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(w + "/simple/demo-pkg/" + name, "w") as z:
    for p, data in files.items():
        z.writestr(p, data)
    z.writestr("demo_pkg-1.0.dist-info/RECORD", record)
open(w + "/simple/demo-pkg/index.html", "w").write(
    '<html><body><a href="%s">%s</a></body></html>\n' % (name, name))
PYEOF

# npm: a package document and its tarball.
mkdir -p "$T/npmpkg/package"
echo '{"name":"demo-npm","version":"1.0.0","main":"index.js"}' \
	> "$T/npmpkg/package/package.json"
echo 'module.exports = "required through the proxy";' \
	> "$T/npmpkg/package/index.js"
tar -C "$T/npmpkg" -czf "$W/npm/demo-npm-1.0.0.tgz" package

"$PY" - "$T" <<'PYEOF' &
import hashlib, http.server, os, sys, base64
t = sys.argv[1]
class H(http.server.CGIHTTPRequestHandler):
    cgi_directories = ["/cgi-bin"]
    def log_message(self, *a):
        with open(t + "/requests", "a") as f:
            f.write("%s %s\n" % (self.headers.get("Host"), self.path))
    def do_GET(self):
        if self.path == "/npm/demo-npm":
            tgz = open(t + "/www/npm/demo-npm-1.0.0.tgz", "rb").read()
            host = self.headers.get("Host")
            doc = ('{"name":"demo-npm","dist-tags":{"latest":"1.0.0"},'
                   '"versions":{"1.0.0":{"name":"demo-npm","version":"1.0.0",'
                   '"dist":{"tarball":"http://%s/npm/demo-npm-1.0.0.tgz",'
                   '"integrity":"sha512-%s"}}}}' % (host,
                   base64.b64encode(hashlib.sha512(tgz).digest()).decode()))
            b = doc.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)
            return
        return super().do_GET()
os.chdir(t + "/www")
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(t + "/port.tmp", "w").write(str(s.server_address[1]))
os.rename(t + "/port.tmp", t + "/port")
s.serve_forever()
PYEOF
SRV=$!
TEARDOWN="kill $SRV 2>/dev/null"
wait_for 20 test -e "$T/port"
PORT=$(cat "$T/port")
printf '127.0.0.1 reg.test\n' > "$T/hosts"
export BWGATE_NET_HOSTS="$T/hosts"
ALLOW="private:reg.test:$PORT"

if $GIT_OK; then
	# A new .git in the project is refused at the call: clone into the
	# sandbox's private /tmp and copy the cloned file into the project.
	jexec --domain "$ALLOW" -- sh -c "git clone -q \
	    'http://reg.test:$PORT/cgi-bin/git/demo.git' /tmp/cloned &&
	    cp /tmp/cloned/README cloned-README"
	assert_eq "git clone over HTTP (http-backend) through the proxy: exit 0" \
		"$(jfield .exit_code)" 0
	assert_eq "the clone has the file" \
		"$(cat "$P/cloned-README" 2>/dev/null)" "cloned through the proxy"
	assert_match "the report counts the host" \
		"$(jfield '[.network.hosts[] | "\(.host) \(.connections)"][0]')" \
		'^"reg.test [1-9]'
	ok_if "git used the smart protocol" grep -q "git-upload-pack" "$T/requests"
else
	skip "git clone through the proxy" "git http-backend not installed"
fi

if "$PY" -m pip --version >/dev/null 2>&1; then
	jexec --domain "$ALLOW" -- "$PY" -m pip install -q --no-cache-dir \
	    --disable-pip-version-check --index-url "http://reg.test:$PORT/simple/" \
	    --trusted-host reg.test --target "$P/site" demo-pkg
	assert_eq "pip install from a local index through the proxy: exit 0" \
		"$(jfield .exit_code)" 0
	assert_eq "the package is installed" \
		"$(cd "$P/site" && "$PY" -c 'import demo_pkg; print(demo_pkg.WHERE)')" \
		"installed through the proxy"
else
	skip "pip install through the proxy" "python3 has no pip"
fi

NPM=$(PATH=/usr/local/bin:/usr/bin:/bin command -v npm)
if [ -n "$NPM" ]; then
	echo '{"name":"t","version":"1.0.0"}' > "$P/package.json"
	jexec --domain "$ALLOW" -- "$NPM" install --no-audit --no-fund \
	    --registry "http://reg.test:$PORT/npm/" demo-npm
	assert_eq "npm install from a local registry through the proxy: exit 0" \
		"$(jfield .exit_code)" 0
	assert_eq "the package is installed" \
		"$(cat "$P/node_modules/demo-npm/index.js" 2>/dev/null)" \
		'module.exports = "required through the proxy";'
	ok_if "npm fetched the package document through the proxy" \
		grep -q "reg.test:$PORT /npm/demo-npm" "$T/requests"
else
	skip "npm install through the proxy" "npm not installed"
fi

# Without the host allowed, the same clients are refused and told why.
jexec --domain "private:elsewhere.test:1" -- "$PY" -m pip download -q \
    --no-cache-dir --disable-pip-version-check --retries 0 --timeout 5 \
    --index-url "http://reg.test:$PORT/simple/" --trusted-host reg.test \
    -d "$P/dl" demo-pkg
assert_match "pip without the host: refused with the hint" \
	"$(jfield '.network.refused[0].why')" \
	"reg.test:$PORT is not among the hosts.*--domain reg.test:$PORT"
done_testing
