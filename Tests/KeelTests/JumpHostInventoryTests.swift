import Foundation
import Keel
import Testing

/// Hosts behind a bastion, as Ansible inventories reach them: ssh's own options (`ansible_ssh_common_args`) or
/// Keel's `keel_proxy_jump`; every other ssh option named, never dropped silently.
@Suite("jump hosts from the inventory")
struct JumpHostInventoryTests {
    private func target(_ variables: String, host: String = "pg1") throws -> HostTarget {
        let fixture = try InventoryFixture([
            "hosts.ini": "[db]\npg1 ansible_host=10.0.0.11\npg2 ansible_host=10.0.0.12\n",
            "group_vars/all.yml": variables,
        ])
        return try fixture.load("hosts.ini").target(for: host)
    }

    @Test(
        "ProxyJump, -J and ProxyCommand's ssh -W are jump hosts",
        arguments: [
            (#"ansible_ssh_common_args: "-o ProxyJump=admin@10.0.0.1:2222""#, "admin@10.0.0.1:2222"),
            (#"ansible_ssh_common_args: "-J bastion,admin@[fd00::1]:2200""#, "bastion admin@[fd00::1]:2200"),
            (#"ansible_ssh_common_args: '-o ProxyCommand="ssh -W %h:%p -q admin@bastion"'"#, "admin@bastion"),
            (#"ansible_ssh_extra_args: "-o 'ProxyCommand ssh -p 2022 -W %h:%p ops@b'""#, "ops@b:2022"),
            (#"ansible_ssh_common_args: "-o ProxyJump=a"\#nkeel_proxy_jump: b"#, "b"),
            (#"ansible_ssh_common_args: "-o ProxyJump=a"\#nkeel_proxy_jump: none"#, ""),
        ])
    func jumps(variables: String, expected: String) throws {
        let target = try target(variables + "\n")
        #expect(target.jumpHosts.map(\.description).joined(separator: " ") == expected)
        #expect(target.ignoredSSHOptions.isEmpty, "\(target.ignoredSSHOptions)")
    }

    @Test("other ssh options are named with where they are written; StrictHostKeyChecking says keys are checked")
    func ignoredOptions() throws {
        let target = try target(
            #"ansible_ssh_common_args: "-o StrictHostKeyChecking=no -o ControlMaster=auto -C -o UserKnownHostsFile=/dev/null""#
                + "\n")
        #expect(target.jumpHosts.isEmpty && target.knownHostsFile == nil)
        let named = target.ignoredSSHOptions.map { $0.prefix { $0 != "(" } }
        #expect(
            named == [
                "-o StrictHostKeyChecking=no ", "-o ControlMaster=auto ", "-C ", "-o UserKnownHostsFile=/dev/null ",
            ],
            "\(target.ignoredSSHOptions)")
        #expect(
            target.ignoredSSHOptions.first?.hasPrefix(
                "-o StrictHostKeyChecking=no (host keys are always checked against known_hosts") == true)
        #expect(target.ignoredSSHOptions.allSatisfy { $0.contains("(ansible_ssh_common_args, ") })
        #expect(target.ignoredSSHOptions.allSatisfy { $0.hasSuffix("group_vars/all.yml:1)") })
    }

    @Test("ssh's port, user, key and known_hosts options are used where the inventory sets no variable of its own")
    func equivalents() throws {
        let options = #"ansible_ssh_common_args: "-p 2222 -l admin -i keys/id -o UserKnownHostsFile=/etc/kh""#
        let reached = try target(options + "\n")
        #expect(reached.port == 2222 && reached.user == "admin", "\(reached)")
        #expect(reached.privateKeyFile?.hasSuffix("/keys/id") == true && reached.knownHostsFile == "/etc/kh")
        #expect(reached.ignoredSSHOptions.isEmpty, "\(reached.ignoredSSHOptions)")
        let own = try target(options + "\nansible_port: 22\nansible_user: ops\n")
        #expect(own.port == 22 && own.user == "ops", "the inventory's own variables win: \(own)")
        let first = try target(#"ansible_ssh_common_args: "-o Port=2200 -p 2201""# + "\n")
        #expect(first.port == 2200, "the first value wins, as in ssh")
    }

    @Test("a jump host that cannot be read is an error naming the file and line")
    func unreadable() throws {
        for variables in [#"keel_proxy_jump: "a b""#, #"ansible_ssh_common_args: "-J host:port""#] {
            #expect {
                _ = try target("x: 1\n" + variables + "\n")
            } throws: { error in
                "\(error)".contains("group_vars/all.yml:2") && "\(error)".contains("[user@]host[:port]")
            }
        }
    }
}
