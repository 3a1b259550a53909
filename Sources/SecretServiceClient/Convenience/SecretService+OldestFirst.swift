// SPDX-License-Identifier: Apache-2.0
// A search whose answer is already in creation order and filtered, where the provider offers one (cofferd).

public import DBusWire
import DBusTransport
import SecretServiceProtocol
import Synchronization

extension SecretService {
    /// `io.coffer.Items.SearchOldestFirst(attributes, excluding)`: the items matching every pair of `attributes`,
    /// less the readable ones that have any pair of `excluding`, those in creation order (`dbus/io.coffer.Items.xml`).
    /// Other providers lack it: the first search on this connection learns so from their `UnknownMethod` (or
    /// `UnknownInterface`, `UnknownObject`) answer, and from then on this returns `nil` at once, for the caller to
    /// search and read properties as usual.
    /// - Returns: the readable items in creation order and the items to unlock first, or `nil` when the provider has
    ///   no such search.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError`` for any other failure.
    public func searchOldestFirst(_ attributes: [String: String], excluding: [String: String]) async throws
        -> (unlocked: [ObjectPath], locked: [ObjectPath])? {
        guard oldestFirstSearch.load(ordering: .relaxed) != ExtensionSupport.absent else { return nil }
        let call = Message.methodCall(destination: destination, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.itemsInterface, member: "SearchOldestFirst",
                                      body: [.stringDictionary(attributes), .stringDictionary(excluding)])
        let reply: Message
        do {
            reply = try await connection.call(call)
        } catch let error as DBusError {
            if ExtensionSupport.meansAbsent(error) {
                oldestFirstSearch.store(ExtensionSupport.absent, ordering: .relaxed)
                return nil
            }
            throw ProxyTarget.translate(error)
        } catch {
            throw ProxyTarget.translate(error)
        }
        oldestFirstSearch.store(ExtensionSupport.offered, ordering: .relaxed)
        guard reply.signature == "aoao" else {
            throw SecretServiceClientError.unexpectedReply(
                "SearchOldestFirst returned '\(reply.signature)', expected 'aoao'")
        }
        return (try ReplyValue.objectPaths(reply.body[0], "unlocked"), try ReplyValue.objectPaths(reply.body[1], "locked"))
    }
}
