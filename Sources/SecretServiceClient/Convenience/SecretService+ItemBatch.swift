// SPDX-License-Identifier: Apache-2.0
// Reading the properties of many items: in one call where the provider offers one, else every GetAll at once.

public import DBusWire
import DBusTransport
import SecretServiceProtocol
import Synchronization

/// What is known about one of the provider's `io.coffer.Items` methods; the values of ``SecretService/itemBatch``
/// and ``SecretService/oldestFirstSearch``.
enum ExtensionSupport {
    static let unknown: UInt8 = 0
    static let offered: UInt8 = 1
    static let absent: UInt8 = 2

    /// Whether `error` is a provider's way of saying it has no such method: gnome-keyring and KeePassXC answer
    /// `UnknownMethod`, and some bindings `UnknownInterface` or `UnknownObject`.
    static func meansAbsent(_ error: DBusError) -> Bool {
        [.unknownMethod, .unknownObject, "org.freedesktop.DBus.Error.UnknownInterface"].contains(error.name)
    }
}

extension SecretService {
    /// The properties of several items, in as few round trips as the provider allows.
    ///
    /// cofferd answers them all in one call (`io.coffer.Items.GetItemProperties`). Other providers (gnome-keyring,
    /// KeePassXC) lack that call: the first batch read on this connection learns so from their `UnknownMethod`
    /// (or `UnknownInterface`, `UnknownObject`) answer, and from then on every `GetAll` is sent before the first
    /// reply is awaited, so N items still cost about one round trip. Each item's outcome is kept apart: an item
    /// deleted meanwhile fails alone (`noSuchObject`), and the caller decides what that means. Run from a task that
    /// prefers the connection's ``DBusTransport/Connection/taskExecutor``, the calls start and finish on the loop
    /// thread without waking any other thread.
    /// - Parameter items: the items' paths.
    /// - Returns: one result per path, in the order given (the error is what ``itemProperties(_:)`` throws).
    public func itemProperties(of items: [ObjectPath]) async -> [Result<ItemProperties, any Error>] {
        if items.isEmpty { return [] }
        if items.count > 1, itemBatch.load(ordering: .relaxed) != ExtensionSupport.absent,
           let batch = await batchProperties(of: items) {
            return batch
        }
        return await pipelinedProperties(of: items)
    }

    /// Whether the provider answers `io.coffer.Items.GetItemProperties`; `nil` until a batch read has found out.
    public var readsItemPropertiesInOneCall: Bool? {
        switch itemBatch.load(ordering: .relaxed) {
        case ExtensionSupport.offered: true
        case ExtensionSupport.absent: false
        default: nil
        }
    }

    /// One `GetItemProperties` call; `nil` when the provider has no such call or refused it, so the caller falls back
    /// to `GetAll` per item (which reports each item's own error).
    private func batchProperties(of items: [ObjectPath]) async -> [Result<ItemProperties, any Error>]? {
        let call = Message.methodCall(destination: destination, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.itemsInterface, member: "GetItemProperties",
                                      body: [.objectPaths(items)])
        let reply: Message
        do {
            reply = try await connection.call(call)
        } catch let error as DBusError {
            if ExtensionSupport.meansAbsent(error) { itemBatch.store(ExtensionSupport.absent, ordering: .relaxed) }
            return nil
        } catch {
            let failure = ProxyTarget.translate(error)
            return items.map { _ in .failure(failure) }
        }
        itemBatch.store(ExtensionSupport.offered, ordering: .relaxed)
        guard reply.signature == "a{oa{sv}}", let entries = reply.body.first?.dictionaryEntries else {
            let failure = SecretServiceClientError.unexpectedReply(
                "GetItemProperties returned '\(reply.signature)', expected 'a{oa{sv}}'")
            return items.map { _ in .failure(failure) }
        }
        // cofferd answers in the order asked, so each entry is checked against the path in its place; a dictionary is
        // built only when the order differs (a path asked twice, or one that names no item).
        let inOrder = entries.count == items.count && zip(entries, items).allSatisfy { $0.key.objectPath == $1 }
        var found: [ObjectPath: [DictEntry]] = [:]
        if !inOrder {
            found.reserveCapacity(entries.count)
            for entry in entries {
                guard let path = entry.key.objectPath, let values = entry.value.dictionaryEntries else { continue }
                found[path] = values
            }
        }
        return items.enumerated().map { index, path in
            guard let values = inOrder ? entries[index].value.dictionaryEntries : found[path] else {
                return .failure(SecretServiceError.noSuchObject("no such item \(path)"))
            }
            return Result { try ItemProperties(decoding: values) }
        }
    }

    /// One `GetAll` per item, every one sent before the first reply is awaited.
    private func pipelinedProperties(of items: [ObjectPath]) async -> [Result<ItemProperties, any Error>] {
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

extension ItemProperties {
    /// Reads the `org.freedesktop.Secret.Item` properties from a `GetAll`-shaped map.
    /// - Throws: ``SecretServiceClientError/unexpectedReply(_:)`` for a property missing or mistyped.
    init(decoding values: [String: DBusValue]) throws {
        try self.init(decoding: values.map { DictEntry(.string($0.key), .variant($0.value)) })
    }

    /// Reads the properties from the entries of an `a{sv}` map as they arrived, without building a dictionary of them
    /// (a batch read decodes one map per item). Names this version does not know are skipped.
    /// - Throws: ``SecretServiceClientError/unexpectedReply(_:)`` for a property missing or mistyped.
    init(decoding entries: [DictEntry]) throws {
        var label: String?, attributes: [String: String]?, created: UInt64?, modified: UInt64?, locked: Bool?
        for entry in entries {
            guard case .string(let name) = entry.key, case .variant(let value) = entry.value else {
                throw SecretServiceClientError.unexpectedReply("the item's properties are not a{sv}")
            }
            switch name {
            case "Label": label = try ReplyValue.string(value, name)
            case "Attributes": attributes = try ReplyValue.attributes(value, name)
            case "Created": created = try ReplyValue.uint64(value, name)
            case "Modified": modified = try ReplyValue.uint64(value, name)
            case "Locked": locked = try ReplyValue.bool(value, name)
            default: continue
            }
        }
        func present<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw SecretServiceClientError.unexpectedReply("the item has no '\(name)' property") }
            return value
        }
        self.init(label: try present(label, "Label"), attributes: try present(attributes, "Attributes"),
                  created: try present(created, "Created"), modified: try present(modified, "Modified"),
                  locked: try present(locked, "Locked"))
    }
}
