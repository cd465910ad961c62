import Foundation
import Keel
import KeelTestSupport
import Testing

@testable import Playbooks

@Suite("Patroni's configuration from the model: one source for bootstrap and PATCH /config")
struct PatroniConfigTests {
    /// The test model, with `parameters` as the entries of postgresql_parameters when given.
    func model(parameters: String? = nil) throws -> ClusterModel {
        var lines = ClusterModelTests.vars.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let parameters, let start = lines.firstIndex(of: "postgresql_parameters:") {
            lines.replaceSubrange(start + 1...start + 2, with: [parameters])
        }
        return try ClusterModelTests().load(vars: lines.joined(separator: "\n")).0
    }

    @Test("parameters keep their YAML types; dotted names stay whole")
    func typedParameters() throws {
        let model = try self.model(
            parameters: """
                  - { option: "max_connections", value: 200 }
                  - { option: "work_mem", value: "16MB" }
                  - { option: "pg_stat_statements.track", value: "all" }
                """)
        let parameters = PatroniDynamicConfig.wanted(model).members["postgresql"]?.members["parameters"]?.members ?? [:]
        #expect(parameters["max_connections"] == .integer(200))
        #expect(parameters["work_mem"] == .string("16MB"))
        #expect(parameters["pg_stat_statements.track"] == .string("all"))
        #expect(parameters["max_wal_senders"] == .integer(10))
    }

    @Test("the PATCH holds only what differs, compared as text; parameters Keel no longer sets are removed")
    func difference() throws {
        let current = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(
                #"""
                {"ttl": 30, "loop_wait": 10, "postgresql": {"use_slots": true,
                 "parameters": {"max_connections": "200", "work_mem": "8MB", "auto_explain.log_min_duration": "1s"}}}
                """#.utf8))
        let wanted = JSONValue.object([
            "ttl": .integer(30), "loop_wait": .integer(5),
            "postgresql": .object([
                "use_slots": .bool(true),
                "parameters": .object([
                    "max_connections": .integer(200), "work_mem": .string("16MB"),
                    "pg_stat_statements.track": .string("all"),
                ]),
            ]),
        ])
        let (patch, summaries) = PatroniDynamicConfig.difference(
            from: current, to: wanted, removing: [["postgresql", "parameters"]])
        #expect(
            patch.json
                == #"{"loop_wait":5,"postgresql":{"parameters":{"auto_explain.log_min_duration":null,"pg_stat_statements.track":"all","work_mem":"16MB"}}}"#
        )
        #expect(
            summaries == [
                "loop_wait: 10 → 5", "pg_stat_statements.track: (unset) → all", "work_mem: 8MB → 16MB",
                "auto_explain.log_min_duration: 1s → (removed)",
            ])
        let (none, nothing) = PatroniDynamicConfig.difference(
            from: wanted, to: wanted, removing: [["postgresql", "parameters"]])
        #expect(none == .object([:]) && nothing.isEmpty)
    }

    @Test(
        "the plan says which changed parameters apply only on a restart, and in which order members restart; read also when this member's PostgreSQL does not answer"
    )
    func restartsPlanned() throws {
        let (model, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        var current = PatroniDynamicConfig.wanted(model)
        guard case .object(var top) = current, case .object(var postgresql) = top["postgresql"],
            case .object(var parameters) = postgresql["parameters"]
        else { throw ResourceError("no parameters in the wanted configuration") }
        let changed = try #require(parameters.keys.first { $0 == "max_connections" })
        parameters[changed] = .string("1")
        parameters["work_mem"] = .string("1kB")
        postgresql["parameters"] = .object(parameters)
        top["postgresql"] = .object(postgresql)
        current = .object(top)
        let resource = PatroniDynamicConfig(model: model, host: "10.213.0.11")
        let probe = current.json + "\n---restart-only\nmax_connections\nshared_buffers\n"
        let summaries = try resource.changes(from: ProbeOutput(text: probe), on: context).map(\.summary)
        #expect(summaries.contains { $0.hasPrefix("max_connections: 1 → ") && $0.hasSuffix(" (applied on a restart)") })
        #expect(summaries.contains { $0.hasPrefix("work_mem: 1kB → ") && !$0.hasSuffix("(applied on a restart)") })
        #expect(
            summaries.last?.hasPrefix("then the members restart one at a time: the replicas, then the leader") == true)
        let noRestart = try resource.changes(
            from: ProbeOutput(text: current.json + "\n---restart-only\nshared_buffers\n"), on: context
        ).map(\.summary)
        #expect(!noRestart.contains { $0.hasPrefix("then the members restart") }, "\(noRestart)")
        // This member's PostgreSQL not answering yet: the separator ends the output (the probe batch drops the
        // last newline), and the configuration is still read.
        let unanswered = try resource.changes(
            from: ProbeOutput(text: current.json + "\n\n---restart-only"), on: context
        ).map(\.summary)
        #expect(unanswered.contains { $0.hasPrefix("work_mem: 1kB → ") }, "\(unanswered)")
        #expect(try resource.changes(from: ProbeOutput(text: "\n---restart-only"), on: context).isEmpty)

        // Members apply the change within the loop_wait in force and publish what they flag within the new one.
        let loopWait = model.patroni.loopWait
        let command = try #require(
            try resource.changes(from: ProbeOutput(text: probe), on: context).last { !$0.actions.isEmpty }
        ).actions.map(\.description).joined()
        #expect(command.hasSuffix("sleep \(2 * loopWait + 5)"), "\(command)")
        top["loop_wait"] = .integer(loopWait + 20)
        let slower = try resource.changes(from: ProbeOutput(text: JSONValue.object(top).json), on: context)
        #expect(slower.map(\.summary).contains("loop_wait: \(loopWait + 20) → \(loopWait)"), "\(slower)")
        let waited = try #require(slower.last { !$0.actions.isEmpty }).actions.map(\.description).joined()
        #expect(waited.hasSuffix("sleep \(2 * loopWait + 25)"), "\(waited)")
    }

    @Test(
        "patroni.yml's bootstrap section is the same configuration as YAML, every parameter in it"
    )
    func bootstrapYAML() throws {
        let model = try self.model(
            parameters: """
                  - { option: "max_connections", value: "200" }
                  - { option: "work_mem", value: "8MB" }
                """)
        let yaml = PatroniDynamicConfig.wanted(model).yaml(indent: 4)
        #expect(yaml.contains(#"    "ttl": 30"#))
        #expect(yaml.contains(#"    "postgresql":"# + "\n" + #"      "parameters":"#))
        #expect(yaml.contains(#"        "wal_level": "replica""#))
        // A new cluster starts with every parameter: its first deploy patches nothing and restarts nothing.
        #expect(yaml.contains(#"        "max_connections": "200""#) && yaml.contains(#""work_mem": "8MB""#), "\(yaml)")
    }
}

extension PatroniConfigTests {
    @Test("a member's patroni.yml renders from the model, with the dynamic configuration under bootstrap.dcs")
    func memberConfig() throws {
        let (model, directory) = try ClusterModelTests().load()
        var facts = Facts()
        facts.interfaces = ["eth0": ["10.213.0.12/24"]]
        let host = HostContext(
            name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts)
        let steps = try PatroniNodeRole(host: host, model: model, wheel: []).steps
        let template = try #require(
            steps.compactMap { $0.resource as? Template }.first { $0.path == "/etc/patroni/patroni.yml" })
        let text = try template.render(for: host)
        #expect(text.contains("  dcs:\n    \"failsafe_mode\": false\n    \"loop_wait\": 10\n"), "\(text)")
        let (failsafe, _) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\npatroni_failsafe_mode: true\n")
        #expect(PatroniDynamicConfig.wanted(failsafe).json.contains(#""failsafe_mode":true"#))
        #expect(text.contains("\n  initdb:\n"), "\(text)")
        #expect(text.contains("  listen: \"10.213.0.12,127.0.0.1:5432\"\n"), "\(text)")
        if let out = ProcessInfo.processInfo.environment["KEEL_DUMP_PATRONI_YML"] {
            try text.write(toFile: out, atomically: true, encoding: .utf8)
        }
    }

    @Test("with the VIP on the leader, only root's helper moves it: Patroni's unit grants no capability")
    func vipWithoutCapabilities() throws {
        let (model, directory) = try ClusterModelTests().load(
            hosts: ClusterModelTests.hosts.replacingOccurrences(
                of: "[balancers]\n10.213.0.14\n10.213.0.15\n", with: ""),
            vars: ClusterModelTests.vars.replacingOccurrences(
                of: "with_haproxy_load_balancing: true", with: "with_haproxy_load_balancing: false"))
        var facts = Facts()
        facts.interfaces = ["eth0": ["10.213.0.12/24"]]
        let host = HostContext(
            name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts)
        let steps = try PatroniNodeRole(host: host, model: model, wheel: []).steps
        func rendered(_ path: String) throws -> String {
            try #require(steps.compactMap { $0.resource as? Template }.first { $0.path == path }).render(for: host)
        }
        let unit = try rendered("/etc/systemd/system/patroni.service")
        #expect(!unit.contains("Capabilities"), "\(unit)")
        let callback = try rendered("/etc/patroni/vip-callback.sh")
        #expect(callback.contains("sudo -n /usr/local/sbin/keel-vip up") && !callback.contains("ip addr"))
        let helper = try rendered("/usr/local/sbin/keel-vip")
        #expect(helper.contains("vip=10.213.0.100\nprefix=24\ninterface=eth0\n"), "\(helper)")
        let sudoers = try #require(
            steps.compactMap { $0.resource as? File }.first { $0.path == "/etc/sudoers.d/keel-vip" })
        guard case .text(let rule) = sudoers.contents else { Issue.record("no rule"); return }
        #expect(
            rule.hasSuffix("postgres ALL=(root) NOPASSWD: /usr/local/sbin/keel-vip up, /usr/local/sbin/keel-vip down\n")
        )
        #expect(sudoers.mode == 0o440)
    }

    @Test(
        "a rolling restart hands the leader's role over first (a switchover, not a failover), then restarts it",
        arguments: [
            (true, ["primary", "switchover", "primary", "primary", "primary", "restart"]),
            (false, ["primary", "restart"]),
        ])
    func leaderHandsOver(isLeader: Bool, expected: [String]) throws {
        let (model, _) = try ClusterModelTests().load()
        let restart = PatroniRestarts.changedFiles(model, host: "10.213.0.11")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = scratch.appendingPathComponent("calls").path
        // The member is the primary until the switchover, and two checks later it is not.
        let state = scratch.appendingPathComponent("leader").path
        if isLeader { _ = FileManager.default.createFile(atPath: state, contents: Data("2".utf8)) }
        try Shell.writeExecutable(
            scratch.appendingPathComponent("curl").path,
            """
            #!/bin/sh
            case "$*" in
            *switchover*) echo switchover >> \(log); printf 200; exit 0;;
            *primary*) echo primary >> \(log)
                [ -e \(state) ] || exit 22
                n=$(cat \(state)); [ "$n" = 0 ] && exit 22
                grep -q switchover \(log) && echo $((n - 1)) > \(state); exit 0;;
            esac
            exit 22

            """)
        try Shell.writeExecutable(
            scratch.appendingPathComponent("systemctl").path,
            "#!/bin/sh\ncase \"$*\" in *try-restart*) echo restart >> \(log);; esac\nexit 0\n")
        let (status, output) = try Shell.capture(
            "/bin/sh", ["-c", restart.command.text], environment: ["PATH": scratch.path + ":/usr/bin:/bin"])
        #expect(status == 0, "\(output)")
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(calls == expected, "\(restart.command)")
    }
}

extension PatroniConfigTests {
    @Test("the Patroni wheel root runs must have the pinned SHA-256; a release Keel does not pin needs one given")
    func wheelPinned() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-wheel-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("not patroni".utf8).write(to: URL(fileURLWithPath: directory + "/patroni-4.1.5-py3-none-any.whl"))
        #expect {
            try PatroniWheel.load(
                version: "4.1.5", digest: PatroniSettings.pinnedWheelDigests["4.1.5"] ?? "", from: directory)
        } throws: {
            "\($0)".contains("has SHA-256 ") && "\($0)".contains("delete it and run again")
        }
        // sha256("not patroni")
        let digest = try Shell.run("/bin/sh", ["-c", "printf 'not patroni' | sha256sum | cut -c1-64"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try PatroniWheel.load(version: "4.1.5", digest: digest, from: directory) == Array("not patroni".utf8))

        let unpinned = ClusterModelTests().error(vars: ClusterModelTests.vars + "\npatroni_version: \"4.0.7\"\n")
        #expect(unpinned?.message.contains("Keel pins no SHA-256 for the Patroni 4.0.7 wheel") == true)
        let (given, _) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars
                + "\npatroni_version: \"4.0.7\"\npatroni_wheel_sha256: \"\(digest.uppercased())\"\n")
        #expect(given.patroni.wheelDigest == digest)
    }
}

extension PatroniConfigTests {
    @Test(
        "after a configuration change or a reload of patroni.yml a run made seconds ago, the pending-restart check first waits a cycle"
    )
    func pendingRestartWaitsForACycle() throws {
        let (model, _) = try ClusterModelTests().load()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keel-pending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let mark = scratch.appendingPathComponent("changed").path
        let reloaded = scratch.appendingPathComponent("reloaded").path
        let probe = PendingRestart(model: model, host: "10.213.0.11").probe
            .replacingOccurrences(of: PatroniDynamicConfig.changedMark, with: mark)
            .replacingOccurrences(of: PatroniNodeRole.reloadedMark, with: reloaded)
        try Shell.writeExecutable(scratch.appendingPathComponent("sleep").path, "#!/bin/sh\necho \"slept $1\"\n")
        try Shell.writeExecutable(scratch.appendingPathComponent("curl").path, "#!/bin/sh\necho '{\"members\": []}'\n")
        func run() throws -> String {
            let (_, output) = try Shell.capture(
                "/bin/sh", ["-c", probe], environment: ["PATH": scratch.path + ":/usr/bin:/bin"])
            return output
        }
        #expect(try run() == "{\"members\": []}\n", "no change recorded: no wait")
        try "\(Int(Date().timeIntervalSince1970) + 12)\n".write(toFile: mark, atomically: true, encoding: .utf8)
        let waited = try run()
        #expect(waited.hasPrefix("slept 1"), "12 s left until the members published: \(waited)")
        try "\(Int(Date().timeIntervalSince1970) - 60)\n".write(toFile: mark, atomically: true, encoding: .utf8)
        #expect(try run() == "{\"members\": []}\n", "published long ago: no wait")
        // A reload of patroni.yml on this member: the probes of a batch run side by side, so this one waits itself.
        try "\(Int(Date().timeIntervalSince1970) + 11)\n".write(toFile: reloaded, atomically: true, encoding: .utf8)
        let afterReload = try run()
        #expect(afterReload.hasPrefix("slept 1"), "11 s left after the reload: \(afterReload)")
        // A stamp records the time `publishedWithin` seconds from now; a reload's is loop_wait + 5 s away.
        _ = try Shell.capture("/bin/sh", ["-c", PendingRestart.stamp(reloaded, publishedWithin: 7).text])
        let deadline = try Int(String(contentsOfFile: reloaded, encoding: .utf8).trimmingCharacters(in: .newlines))
        #expect(deadline.map { (6...7).contains($0 - Int(Date().timeIntervalSince1970)) } == true)
        let reload = PatroniNodeRole.reload(model).command.text
        #expect(
            reload.contains(
                PendingRestart.stamp(PatroniNodeRole.reloadedMark, publishedWithin: model.patroni.loopWait + 5).text),
            "\(reload)")
    }

    @Test(
        "the leader restarts in place only when it lowers a hot standby's minimum or its Patroni does not say why",
        arguments: [
            (#"{"pending_restart_reason": {"max_connections": {"old_value": "200", "new_value": "250"}}}"#, false),
            (#"{"pending_restart_reason": {"max_connections": {"old_value": "250", "new_value": "200"}}}"#, true),
            (#"{"pending_restart_reason": {"shared_buffers": {"old_value": "256MB", "new_value": "128MB"}}}"#, false),
            (#"{"pending_restart": true}"#, true),
        ])
    func leaderRestartsInPlace(patroni: String, inPlace: Bool) throws {
        let (status, _) = try Shell.capture(
            "/bin/sh",
            ["-c", "printf '%s' \(shellQuote(patroni)) | python3 -c \(shellQuote(PendingRestart.lowersMinimum))"])
        #expect((status == 0) == inPlace)
    }

    @Test("the leader's restart hands over first; tried again, it restarts in place")
    func leaderHandsOver() throws {
        let (model, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let cluster =
            #"{"members": [{"name": "10.213.0.11", "host": "10.213.0.11", "role": "leader", "state": "running", "#
            + #""timeline": 3, "pending_restart": true}, {"name": "10.213.0.12", "host": "10.213.0.12", "#
            + #""role": "sync_standby", "state": "streaming", "timeline": 3, "lag": 0, "pending_restart": true}]}"#
        let restart = PendingRestart(model: model, host: "10.213.0.11")
        let changes = try restart.changes(from: ProbeOutput(text: cluster), on: context)
        #expect(changes.map(\.summary).first == "restart 10.213.0.12 (sync_standby)")
        #expect(changes.last?.summary.hasPrefix("restart 10.213.0.11 (leader), after a switchover") == true)
        #expect(changes.last?.actions.first?.description.contains("/switchover") == true)
        var again = restart
        again.handsOver = false
        let inPlace = try again.changes(from: ProbeOutput(text: cluster), on: context)
        #expect(inPlace.last?.summary == "restart 10.213.0.11 (leader)")
        #expect(inPlace.last?.actions.first?.description.contains("/switchover") == false)
    }
}

extension PatroniConfigTests {
    @Test("a restart PostgreSQL waits for and Patroni has not flagged: Patroni reloads and flags it; otherwise nothing")
    func unflaggedRestart() throws {
        let (model, directory) = try ClusterModelTests().load()
        let context = try ClusterModelTests.host("10.213.0.12", directory)
        let resource = UnflaggedRestart(model: model, host: "10.213.0.12")
        let unflagged = try resource.changes(from: ProbeOutput(text: "waiting=max_connections\n"), on: context)
        #expect(
            unflagged.map(\.summary) == [
                "PostgreSQL waits for a restart to apply max_connections, which Patroni has not flagged: reload Patroni"
            ])
        let command = try #require(unflagged.first?.actions.first).description
        #expect(command.hasPrefix(PatroniNodeRole.reload(model).command.text + " && "), "\(command)")
        for converged in ["waiting=max_connections\nflagged=1\n", "waiting=\n", ""] {
            #expect(try resource.changes(from: ProbeOutput(text: converged), on: context).isEmpty, "\(converged)")
        }
        #expect(UnflaggedRestart.waitingSQL.contains("'primary_conninfo'"), "Patroni's own exceptions are left out")
    }
}
