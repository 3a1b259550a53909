// SPDX-License-Identifier: Apache-2.0
// Reading the properties of many items with every call in flight at once.

public import DBusWire

extension SecretService {
    /// The properties of several items, with every `GetAll` sent before the first reply is awaited.
    ///
    /// The calls are pipelined on the one connection, so N items cost about one round trip instead of N. Each
    /// item's outcome is kept apart: an item deleted meanwhile fails alone, and the caller decides what that means.
    /// Run from a task that prefers the connection's ``DBusTransport/Connection/taskExecutor``, the child calls
    /// start and finish on the loop thread without waking any other thread.
    /// - Parameter items: the items' paths.
    /// - Returns: one result per path, in the order given (the error is what ``itemProperties(_:)`` throws).
    public func itemProperties(of items: [ObjectPath]) async -> [Result<ItemProperties, any Error>] {
        if items.count == 1 { return [await outcome(of: items[0])] }
        return await withTaskGroup(of: (Int, Result<ItemProperties, any Error>).self) { group in
            for (index, path) in items.enumerated() {
                group.addTask { (index, await self.outcome(of: path)) }
            }
            var results = [Result<ItemProperties, any Error>?](repeating: nil, count: items.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    private func outcome(of item: ObjectPath) async -> Result<ItemProperties, any Error> {
        do {
            return .success(try await itemProperties(item))
        } catch {
            return .failure(error)
        }
    }
}
