/// Runs the probes of many resources as one remote script and splits its output back per resource.
///
/// Each probe runs in its own subshell; after it, a marker line with a random nonce and its index ends its output,
/// so one probe's output can never be mistaken for another's.
struct ProbeBatch {
    let probes: [String]
    let nonce: String

    init(_ probes: [String], nonce: String = String(UInt64.random(in: 0...UInt64.max), radix: 36)) {
        self.probes = probes
        self.nonce = nonce
    }

    var script: String {
        probes.enumerated().map { index, probe in
            "( \(probe)\n) </dev/null 2>/dev/null; printf '\\n@@keel-\(nonce) \(index)\\n'"
        }.joined(separator: "\n")
    }

    /// The outputs, in probe order.
    /// - Throws: when a marker is missing (the script was cut short).
    func split(_ output: String) throws -> [ProbeOutput] {
        var results: [ProbeOutput] = []
        var rest = Substring(output)
        for index in probes.indices {
            let marker = "\n@@keel-\(nonce) \(index)\n"
            guard let range = rest.range(of: marker) else {
                throw ResourceError("the state probe stopped early (after \(index) of \(probes.count) probes)")
            }
            let text = String(rest[..<range.lowerBound])
            results.append(ProbeOutput(text: text.hasSuffix("\n") ? String(text.dropLast()) : text))
            rest = rest[range.upperBound...]
        }
        return results
    }
}
