import Testing

@testable import Keel

@Suite("Jinja in variables, evaluated as Ansible does for the forms postgresql_cluster uses")
struct JinjaTests {
    private let variables: [String: InventoryValue] = [
        "patroni_cluster_name": .string("pg-lab"), "postgresql_version": .int(16), "cluster_vip": .string("10.0.0.100"),
        "pgbackrest_repo_type": .string("POSIX"), "parts": .list([.string("a"), .string(" b")]),
        "haproxy_listen_port": .map(["master": .int(5000)]), "memory": .int(3951), "empty": .string(""),
        "cloud_provider": .string(""),
    ]

    private func render(_ text: String) throws(JinjaError) -> InventoryValue {
        let variables = variables
        return try JinjaEvaluator { name throws(JinjaError) in
            guard let value = variables[name] else { throw JinjaError.undefined(name) }
            return value
        }.render(text)
    }

    @Test(
        "the reference's expressions",
        arguments: [
            ("{{ patroni_cluster_name }}", InventoryValue.string("pg-lab")),
            ("etcd-{{ patroni_cluster_name }}", .string("etcd-pg-lab")),
            ("/var/lib/postgresql/{{ postgresql_version }}/main", .string("/var/lib/postgresql/16/main")),
            ("{{ cluster_vip.split('.')[3] | int }}", .int(100)),
            ("{{ pgbackrest_repo_type | lower }}", .string("posix")),
            ("{{ parts | join('') }}", .string("a b")),
            ("{{ AWS_ACCESS_KEY_ID | default('') }}", .string("")),
            ("{{ WALG_S3_PREFIX | default('s3://' + patroni_cluster_name) }}", .string("s3://pg-lab")),
            ("{{ haproxy_listen_port.master }}", .int(5000)),
            ("{{ haproxy_listen_port['master'] }}", .int(5000)),
            ("{{ (memory * 0.25) | int }}MB", .string("987MB")),
            ("{{ postgresql_version ~ '-' ~ 'x' }}", .string("16-x")),
            ("{{ empty | default('none', true) }}", .string("none")),
            ("{{ 'a' if postgresql_version > 15 else 'b' }}", .string("a")),
            // autobase 2026-03's parallel workers, from the host's processors.
            ("{{ [memory | int, 16] | max }}", .int(3951)),
            ("{{ [(memory | int // 2), 8] | min }}", .int(8)),
            ("{{ ['b', 'a'] | max }}", .string("b")),
            ("{{ [1, 'a'] | max }}", .null),
            ("{{ [] | min }}", .null),
            ("{{ patroni_cluster_name is_not }}", .null),
        ])
    func expressions(text: String, expected: InventoryValue) throws {
        if expected == .null {
            #expect(throws: JinjaError.self) { try render(text) }
        } else {
            #expect(try render(text) == expected, "\(text)")
        }
    }

    @Test("{% if %} blocks, comments and whitespace control")
    func statements() throws {
        let dataDirectory = """
            {% if cloud_provider | default('') | length > 0 %}/pgdata/{{ postgresql_version }}/data{% else %}\
            /var/lib/postgresql/{{ postgresql_version }}/{{ patroni_cluster_name }}{% endif %}
            """
        #expect(try render(dataDirectory) == .string("/var/lib/postgresql/16/pg-lab"))
        #expect(try render("a {#- note -#} b") == .string("ab"))
        #expect(
            try render("{% if memory > 4000 %}big{% elif memory > 2000 %}medium{% else %}small{% endif %}")
                == .string("medium"))
        #expect(
            try render("{{ parts }}") == .list([.string("a"), .string(" b")]), "a single expression keeps its type")
        #expect(try render("x{{ parts }}") == .string("x['a', ' b']"), "text around it makes it Python's text")
    }

    @Test("refused with what is wrong: an undefined name, a fact, an unclosed tag, an unsupported statement")
    func refusals() {
        func message(_ text: String) -> String? {
            do {
                _ = try render(text)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message("{{ nowhere }}") == "'nowhere' is undefined")
        #expect(message("{{ ansible_memtotal_mb * 0.25 }}")?.contains("not a fact Keel gathers") == true)
        #expect(message("{{ patroni_cluster_name") == "'{{' is not closed")
        #expect(message("{% for x in parts %}{{ x }}{% endfor %}")?.contains("is not supported") == true)
        #expect(message("{% if memory %}x") == "'{% if %}' has no '{% endif %}'")
        #expect(message("{{ parts.nothing }}") == "a list has no 'nothing'")
    }
}

extension JinjaTests {
    @Test("the hosts' facts under Ansible's names, below every variable, when Jinja refers to them")
    func facts() throws {
        let facts = Facts.parse(
            """
            os_id=debian
            os_version=12
            os_codename=bookworm
            hostname=pgnode01.lab
            cpus=2
            mem_kb=4046848
            default_if=eth0
            addr=lo 127.0.0.1/8
            addr=eth0 10.213.0.11/24
            """)
        let ansible = facts.ansibleVariables
        #expect(ansible["ansible_memtotal_mb"] == .int(3952))
        #expect(ansible["ansible_distribution"] == .string("Debian"))
        #expect(ansible["ansible_distribution_release"] == .string("bookworm"))
        #expect(ansible["ansible_hostname"] == .string("pgnode01"))
        #expect(
            ansible["ansible_default_ipv4"]
                == .map(["address": .string("10.213.0.11"), "interface": .string("eth0"), "prefix": .string("24")]))

        let fixture = try InventoryFixture([
            "hosts": "[db]\npg1\npg2 ansible_memtotal_mb=1000\n",
            "group_vars/all.yml": """
            shared_buffers: "{{ (ansible_memtotal_mb * 0.25) | int }}MB"
            vip_interface: "{{ ansible_default_ipv4.interface }}"
            plain: "{{ inventory_hostname }}"
            """,
        ])
        let inventory = try fixture.load("hosts")
        #expect(
            inventory.factsReferred(among: ansible.keys) == ["ansible_default_ipv4", "ansible_memtotal_mb"],
            "only the facts the variables name")
        let gathered = inventory.adding(facts: ["pg1": ansible, "pg2": ansible])
        let pg1 = VariableReader(host: "pg1", variables: gathered.variables(for: "pg1"))
        #expect(try pg1.string(["shared_buffers"]) == "988MB")
        #expect(try pg1.string(["vip_interface"]) == "eth0")
        let pg2 = VariableReader(host: "pg2", variables: gathered.variables(for: "pg2"))
        #expect(try pg2.string(["shared_buffers"]) == "250MB", "a variable of the inventory wins over a fact")
    }
}

extension JinjaTests {
    @Test("Ansible's own variables: the host's name, its groups, and every group's hosts")
    func magicVariables() throws {
        let fixture = try InventoryFixture([
            "hosts": "[etcd_cluster]\npg1\npg2\n\n[db]\npg1\npg2\n\n[lone]\nx1\n",
            "group_vars/all.yml": """
            endpoints: "{{ groups['etcd_cluster'] | join(',') }}"
            count: "{{ groups.all | length }}"
            mine: "{{ group_names | join(' ') }}"
            name: "{{ inventory_hostname }}"
            """,
        ])
        let inventory = try fixture.load("hosts")
        let pg2 = VariableReader(host: "pg2", variables: inventory.variables(for: "pg2"))
        #expect(try pg2.string(["endpoints"]) == "pg1,pg2")
        #expect(try pg2.int(["count"]) == 3)
        #expect(try pg2.string(["mine"]) == "db etcd_cluster")
        #expect(try pg2.string(["name"]) == "pg2")
        #expect(Inventory.magicVariables.isSubset(of: inventory.variables(for: "x1").keys))
    }
}

extension JinjaTests {
    @Test("a fact holding Jinja is taken as the host reports it, never evaluated")
    func factsAreNotTemplates() throws {
        let fixture = try InventoryFixture([
            "hosts": "[db]\npg1\n", "group_vars/all.yml": "name: \"{{ ansible_hostname }}\"\n",
        ])
        let inventory = try fixture.load("hosts").adding(facts: [
            "pg1": ["ansible_hostname": .string("{{ 9223372036854775807 * 2 }}")]
        ])
        let reader = VariableReader(host: "pg1", variables: inventory.variables(for: "pg1"))
        #expect(try reader.string(["name"]) == "{{ 9223372036854775807 * 2 }}")
    }
}
