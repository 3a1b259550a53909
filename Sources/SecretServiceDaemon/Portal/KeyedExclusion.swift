// SPDX-License-Identifier: Apache-2.0
// One piece of work per key at a time.

/// Runs work for one key at a time; work for other keys runs alongside.
actor KeyedExclusion {
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func run<T: Sendable>(_ key: String, _ body: @Sendable () async -> T) async -> T {
        if waiting[key] != nil {
            // Woken by the holder as it finishes, which hands the key on rather than releasing it.
            await withCheckedContinuation { waiting[key]?.append($0) }
        } else {
            waiting[key] = []
        }
        let result = await body()
        if var queue = waiting[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[key] = queue
            next.resume()
        } else {
            waiting[key] = nil
        }
        return result
    }
}
