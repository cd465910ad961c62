/// A unified diff of two texts, as `diff -u` prints it, with three lines of context.
enum UnifiedDiff {
    static func make(old: String, new: String, path: String) -> String {
        let a = lines(old)
        let b = lines(new)
        let operations = diff(a, b)
        var hunks: [String] = []
        var index = 0
        while index < operations.count {
            guard operations[index].kind != .same else { index += 1; continue }
            var start = index
            var context = 0
            while start > 0 && operations[start - 1].kind == .same && context < 3 { start -= 1; context += 1 }
            var end = index
            var trailing = 0
            while end < operations.count {
                if operations[end].kind == .same {
                    trailing += 1
                    if trailing > 6 { break }
                } else {
                    trailing = 0
                }
                end += 1
            }
            end = min(operations.count, end - max(0, trailing - 3))
            let slice = operations[start..<end]
            let oldStart = (slice.first?.oldLine ?? 0) + 1
            let newStart = (slice.first?.newLine ?? 0) + 1
            let oldCount = slice.filter { $0.kind != .insert }.count
            let newCount = slice.filter { $0.kind != .delete }.count
            var hunk = "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for operation in slice {
                switch operation.kind {
                case .same: hunk += " \(operation.text)\n"
                case .delete: hunk += "-\(operation.text)\n"
                case .insert: hunk += "+\(operation.text)\n"
                }
            }
            hunks.append(hunk)
            index = end
        }
        guard !hunks.isEmpty else { return "" }
        return "--- \(path) (on host)\n+++ \(path) (wanted)\n" + hunks.joined()
    }

    private struct Operation {
        enum Kind { case same, delete, insert }
        var kind: Kind
        var text: String
        var oldLine: Int
        var newLine: Int
    }

    private static func lines(_ text: String) -> [String] {
        var result = text.components(separatedBy: "\n")
        if result.last == "" { result.removeLast() }
        return result
    }

    /// Longest-common-subsequence diff; config files are small enough for the quadratic table.
    private static func diff(_ a: [String], _ b: [String]) -> [Operation] {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var operations: [Operation] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                operations.append(Operation(kind: .same, text: a[i], oldLine: i, newLine: j))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || table[i + 1][j] >= table[i][j + 1] {
                operations.append(Operation(kind: .delete, text: a[i], oldLine: i, newLine: j))
                i += 1
            } else {
                operations.append(Operation(kind: .insert, text: b[j], oldLine: i, newLine: j))
                j += 1
            }
        }
        return operations
    }
}
