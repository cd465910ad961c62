/// Runs the probes of many resources as one remote script and splits its output back per resource.
///
/// The paths the probes want inspected are read first, all together (``PathInspection``). The probes then run
/// side by side in ``lanes`` (a member's probes wait mostly on its services: Patroni's REST API, `psql`), each in
/// its own subshell writing to a file of its own, ended by a marker line with a random nonce and its index, so one
/// probe's output can never be mistaken for another's; one `cat` then prints them in probe order. Each output is
/// followed by the lines of its inspection.
struct ProbeBatch: Sendable {
    let probes: [String]
    /// The path each probe wants inspected, if any, by probe index.
    let inspections: [PathInspection?]
    /// Whether each probe may wait (``Resource/probeWaits``), by probe index; a probe not listed may.
    let waits: [Bool]
    let nonce: String
    /// How many probes run at once: enough to overlap their waits, few enough for a small host.
    static let lanes = 4
    /// The command that runs ``script``, sent on its standard input (an exec request holds at most a few tens of
    /// kilobytes): the login shell hands its process over to a shell reading it.
    static let command = "exec /bin/sh -s"

    init(
        _ probes: [String], inspecting inspections: [PathInspection?] = [], waiting waits: [Bool] = [],
        nonce: String = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    ) {
        self.probes = probes
        self.inspections = inspections
        self.waits = waits
        self.nonce = nonce
    }

    /// The probes of `steps`; a step that runs once, on another host than this one, is not probed (an empty probe).
    init(probing steps: [Step], isFirstHost: Bool) {
        let probed = steps.map { !$0.runOnce || isFirstHost }
        self.init(
            zip(steps, probed).map { $1 ? $0.resource.probe : "" },
            inspecting: zip(steps, probed).map { $1 ? $0.resource.inspects : nil },
            waiting: steps.map(\.resource.probeWaits))
    }

    /// ``inspections`` with one entry for each probe (nil where none was given).
    var paddedInspections: [PathInspection?] {
        inspections + Array(repeating: nil, count: max(0, probes.count - inspections.count))
    }

    /// ``waits`` with one entry for each probe (true where none was given).
    var paddedWaits: [Bool] { waits + Array(repeating: true, count: max(0, probes.count - waits.count)) }

    var script: String {
        var parts: [String] = []
        let inspected = inspections.compactMap(\.self)
        if !inspected.isEmpty {
            parts.append(
                PathInspection.script(inspected, separator: "printf '\\n@@keel-\(nonce) stat\\n'")
                    + "; printf '\\n@@keel-\(nonce) inspected\\n'")
        }
        let run = probes.indices.filter { !probes[$0].isEmpty }
        // One probe, or none, or only probes that do not wait, run one after another: no files, no lanes; one that
        // does not wait runs in the script's own shell, with no subshell to start.
        guard run.count > 1, run.contains(where: { paddedWaits[$0] }) else {
            parts += probes.enumerated().map { index, probe in
                if probe.isEmpty { return marker(index) }
                let (open, close) = paddedWaits[index] ? ("(", ")") : ("{", "}")
                return "\(open) \(probe)\n\(close) </dev/null 2>/dev/null; \(marker(index))"
            }
            return parts.joined(separator: "\n")
        }
        let ended = { (index: Int) in "\(marker(index)) >>\"$outputs/\(index)\"" }
        parts.append(#"outputs=$(mktemp -d) || exit 1; trap 'rm -rf "$outputs"' EXIT"#)
        parts += probes.indices.filter { probes[$0].isEmpty }.map(ended)
        for lane in 0..<min(Self.lanes, run.count) {
            let probed = stride(from: lane, to: run.count, by: Self.lanes).map { run[$0] }
            parts.append(
                "(\n"
                    + probed.map { "( \(probes[$0])\n) </dev/null >\"$outputs/\($0)\" 2>/dev/null; \(ended($0))" }
                    .joined(separator: "\n") + "\n) &")
        }
        // One `cat` for them all, in probe order: a probe cut short leaves no marker, which ``split(_:)`` finds.
        parts.append("wait; cd \"$outputs\" && cat -- \(probes.indices.map(String.init).joined(separator: " "))")
        return parts.joined(separator: "\n")
    }

    /// The command printing the line that ends probe `index`'s output.
    private func marker(_ index: Int) -> String { "printf '\\n@@keel-\(nonce) \(index)\\n'" }

    /// The outputs, in probe order, each followed by the lines of its inspection.
    /// - Throws: when a marker is missing (the script was cut short).
    func split(_ output: String) throws -> [ProbeOutput] {
        var rest = Substring(output)
        var found = PathInspection.Found()
        if inspections.contains(where: { $0 != nil }) {
            guard let stat = rest.range(of: "\n@@keel-\(nonce) stat\n"),
                let sums = rest[stat.upperBound...].range(of: "\n@@keel-\(nonce) inspected\n")
            else {
                throw ResourceError("the state probe stopped early (while reading the attributes of files)")
            }
            found = PathInspection.Found(stat: rest[..<stat.lowerBound], sums: rest[stat.upperBound..<sums.lowerBound])
            rest = rest[sums.upperBound...]
        }
        var results: [ProbeOutput] = []
        for index in probes.indices {
            let marker = "\n@@keel-\(nonce) \(index)\n"
            guard let range = rest.range(of: marker) else {
                throw ResourceError("the state probe stopped early (after \(index) of \(probes.count) probes)")
            }
            var text = String(rest[..<range.lowerBound])
            if text.hasSuffix("\n") { text.removeLast() }
            if index < inspections.count, let inspection = inspections[index] {
                text += (text.isEmpty ? "" : "\n") + found.lines(for: inspection)
            }
            results.append(ProbeOutput(text: text))
            rest = rest[range.upperBound...]
        }
        return results
    }
}
