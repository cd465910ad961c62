/// Reads the Ansible YAML inventory shape: `GROUP: {hosts: {HOST: VARS}, vars: {...}, children: {GROUP: ...}}`.
enum YAMLInventoryReader {
    static func read(_ text: String, file: String, into builder: inout InventoryBuilder) throws(InventoryError) {
        let root = try YAMLDocument.parse(text, file: file, nodeDepth: .max)
        guard let root else { return }
        guard case .mapping(let groups) = root.content else {
            throw InventoryError(
                "the inventory must be a mapping of groups (usually starting with `all:`), not \(YAMLDocument.kind(of: root))",
                at: YAMLDocument.location(root, file))
        }
        for (key, body) in groups {
            try readGroup(try name(of: key, file), body: body, parent: nil, file: file, into: &builder)
        }
    }

    private static func readGroup(
        _ group: String, body: YAMLNode, parent: String?, file: String, into builder: inout InventoryBuilder
    ) throws(InventoryError) {
        let location = YAMLDocument.location(body, file)
        if YAMLDocument.isNull(body) {
            if let parent {
                builder.addChild(group, to: parent, at: location, defined: false)
            } else {
                builder.defineGroup(group, at: location)
            }
            return
        }
        guard case .mapping(let sections) = body.content else {
            throw InventoryError(
                "group '\(group)' must be a mapping with hosts, vars or children, not \(YAMLDocument.kind(of: body))",
                at: location)
        }
        builder.defineGroup(group, at: location)
        if let parent { builder.addChild(group, to: parent, at: location, defined: true) }
        for (key, value) in sections {
            let section = try name(of: key, file)
            switch section {
            case "hosts":
                try readHosts(value, group: group, file: file, into: &builder)
            case "vars":
                for (name, variable) in try YAMLDocument.variables(
                    in: value, file: file, context: "vars of group '\(group)'")
                {
                    builder.setVariable(name, variable, onGroup: group)
                }
            case "children":
                if YAMLDocument.isNull(value) { continue }
                guard case .mapping(let children) = value.content else {
                    throw InventoryError(
                        "children of group '\(group)' must be a mapping of group names, not \(YAMLDocument.kind(of: value))",
                        at: YAMLDocument.location(value, file), hint: "write each child as `NAME:` on its own line")
                }
                for (childKey, childBody) in children {
                    try readGroup(
                        try name(of: childKey, file), body: childBody, parent: group, file: file, into: &builder)
                }
            default:
                throw InventoryError(
                    "unknown key '\(section)' in group '\(group)'", at: YAMLDocument.location(key, file),
                    hint: "a group holds only `hosts`, `vars` and `children`")
            }
        }
    }

    private static func readHosts(_ node: YAMLNode, group: String, file: String, into builder: inout InventoryBuilder)
        throws(InventoryError)
    {
        if YAMLDocument.isNull(node) { return }
        guard case .mapping(let hosts) = node.content else {
            throw InventoryError(
                "hosts of group '\(group)' must be a mapping of host names, not \(YAMLDocument.kind(of: node))",
                at: YAMLDocument.location(node, file),
                hint: "write each host as `NAME:` (followed by its variables, if any)")
        }
        for (key, body) in hosts {
            let host = try name(of: key, file)
            let variables =
                YAMLDocument.isNull(body)
                ? [:] : try YAMLDocument.variables(in: body, file: file, context: "host '\(host)'")
            try builder.addHost(host, to: group, variables: variables, at: YAMLDocument.location(key, file))
        }
    }

    private static func name(of key: YAMLNode, _ file: String) throws(InventoryError) -> String {
        guard let name = key.text, !name.isEmpty else {
            throw InventoryError(
                "expected a name here, found \(YAMLDocument.kind(of: key))", at: YAMLDocument.location(key, file))
        }
        return name
    }
}
