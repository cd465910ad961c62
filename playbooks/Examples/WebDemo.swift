import Keel

extension Examples {
    /// A small web server per host: a package, a templated page and site config, and a service restarted only
    /// when its config changes. Used by the engine's tests and benchmarks.
    public static let webDemo = Playbook(
        "web-demo", summary: "nginx serving a page rendered per host, restarted when its config changes"
    ) {
        Play("web servers", on: "all", become: true) { host in
            Package("nginx-light")
            Directory("/var/www/keel")
            Template("web-demo/index.html", to: "/var/www/keel/index.html")
            Template("web-demo/site.conf", to: "/etc/nginx/sites-enabled/keel.conf")
                .onChange(.restart("nginx"))
            File.absent("/etc/nginx/sites-enabled/default")
                .onChange(.restart("nginx"))
            Service("nginx", state: .started, enabled: true)
        }
        Play("web servers answer", on: "all") { host in
            WaitFor(
                .http("http://127.0.0.1:\(try host.variables.int(["web_demo_port"]) ?? 8080)/", status: 200),
                timeout: .seconds(30))
        }
    }
}
