import Foundation
import Testing

@testable import Keel

@Suite("Variables from the command line (-e), as ansible-playbook takes them, over every other")
struct ExtraVariablesTests {
    @Test("NAME=VALUE words are strings; JSON and YAML text keep their types; @FILE keeps its lines; later wins")
    func forms() throws {
        let fixture = try InventoryFixture([
            "hosts": "[db]\npg1 postgresql_port=5433\n",
            "group_vars/all.yml": "patroni_cluster_name: from-group-vars\npostgresql_version: 15\n",
            "site.yml": "# site\npostgresql_version: 16\ncluster_vip: \"10.0.0.9\"\n",
        ])
        var inventory = try fixture.load("hosts")
        for (index, argument) in [
            "patroni_cluster_name=from-e postgresql_port=6000 'quoted=a b'",
            #"{"synchronous_node_count": 2, "postgresql_port": 7000}"#,
            "@" + fixture.path("site.yml"),
        ].enumerated() {
            inventory = inventory.adding(extraVariables: try ExtraVariables.parse(argument, position: index + 1))
        }
        let variables = inventory.variables(for: "pg1")
        #expect(variables["patroni_cluster_name"]?.value == .string("from-e"))
        #expect(variables["quoted"]?.value == .string("a b"))
        #expect(variables["postgresql_port"]?.value == .int(7000), "the later -e wins over the host's own")
        #expect(variables["synchronous_node_count"]?.value == .int(2))
        #expect(variables["postgresql_version"]?.value == .int(16))
        #expect(variables["postgresql_version"]?.origin == SourceLocation(file: fixture.path("site.yml"), line: 2))
        #expect(variables["patroni_cluster_name"]?.origin.description == "-e #1:1")
    }

    @Test("as Ansible's -e: '#' is part of a value, a Jinja block with spaces is one value")
    func ansibleWords() throws {
        let variables = try ExtraVariables.parse(
            #"password=a#b target={{ groups['replica'][0] }} lag={% if x %}1{% endif %} note="c d" e=f"#, position: 1)
        #expect(variables["password"]?.value == .string("a#b"))
        #expect(variables["target"]?.value == .string("{{ groups['replica'][0] }}"))
        #expect(variables["lag"]?.value == .string("{% if x %}1{% endif %}"))
        #expect(variables["note"]?.value == .string("c d"))
        #expect(variables["e"]?.value == .string("f"))
        #expect(try ShellWords.split("a=1 # comment", at: SourceLocation(file: "x", line: 1)) == ["a=1"])
    }

    @Test("refused with what to write: a word without =, a missing file, bad YAML with its line")
    func refusals() throws {
        func error(_ argument: String) -> InventoryError? {
            do {
                _ = try ExtraVariables.parse(argument, position: 1)
                return nil
            } catch {
                return error
            }
        }
        #expect(error("oops")?.message == "'oops' in -e #1 is not NAME=VALUE")
        #expect(error("@/nonexistent/vars.yml")?.message == "cannot read variables file /nonexistent/vars.yml (-e #1)")
        let fixture = try InventoryFixture(["bad.yml": "a: 1\nb: [\n"])
        #expect(error("@" + fixture.path("bad.yml"))?.location?.file == fixture.path("bad.yml"))
    }
}
