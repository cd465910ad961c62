/// The inventory variables that say how to reach a host, each setting with the names it goes by (Keel's own
/// first, then Ansible's), and Ansible's connection settings Keel accepts without using.
public enum ConnectionVariable {
    static let address = ["keel_host", "ansible_host", "ansible_ssh_host"]
    static let port = ["keel_port", "ansible_port", "ansible_ssh_port"]
    static let user = ["keel_user", "ansible_user", "ansible_ssh_user"]
    static let privateKeyFile = ["keel_private_key_file", "ansible_ssh_private_key_file", "ansible_private_key_file"]
    static let password = ["keel_password", "ansible_password", "ansible_ssh_pass"]
    static let become = ["keel_become", "ansible_become"]
    static let becomeUser = ["keel_become_user", "ansible_become_user"]
    static let knownHostsFile = ["keel_known_hosts_file"]
    /// Jump hosts, `[user@]host[:port]` comma-separated (OpenSSH's ProxyJump); `none` for none. It wins over
    /// ssh's own options below.
    static let proxyJump = ["keel_proxy_jump"]
    /// ssh's own options, each variable read whole (both apply): their jump hosts are honoured, others named.
    static let sshArguments = ["ansible_ssh_common_args", "ansible_ssh_extra_args"]
    /// Set by Ansible, or meaningful only to it.
    static let ignored = [
        "ansible_connection", "ansible_become_method", "ansible_python_interpreter",
    ]

    /// Every name above.
    public static let all: Set<String> = Set(
        [
            address, port, user, privateKeyFile, password, become, becomeUser, knownHostsFile, proxyJump,
            sshArguments, ignored,
        ].joined())
}
