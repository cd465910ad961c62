extension Array where Element: Sendable {
    /// Calls `body` on every element, at most `limit` at once, and returns the results in the array's order;
    /// `completed` hears each result as soon as it is ready.
    func concurrentMap<Result: Sendable>(
        limit: Int,
        completed: (Int, Result) -> Void = { _, _ in },
        _ body: @escaping @Sendable (Element) async -> Result
    ) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: count)
            var next = 0
            func startNext() {
                guard next < count else { return }
                let index = next
                let element = self[index]
                group.addTask { (index, await body(element)) }
                next += 1
            }
            for _ in 0..<Swift.min(Swift.max(1, limit), count) { startNext() }
            while let (index, result) = await group.next() {
                completed(index, result)
                results[index] = result
                startNext()
            }
            return results.map { $0! }
        }
    }
}
