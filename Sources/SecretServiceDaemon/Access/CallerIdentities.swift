// SPDX-License-Identifier: Apache-2.0
// The identity of each client connection, resolved once and forgotten when the client leaves the bus.

import DBusWire
#if canImport(Glibc)
import Glibc
#endif
import DBusTransport
import SecretServiceProtocol

/// Owns the resolved ``Caller`` of every connection. A unique bus name is never reused and a connection cannot
/// change its process, so the first resolution holds for the connection's life.
actor CallerIdentities {
    private var resolved: [BusName: Caller] = [:]
    private let sender: any MessageSender
    private let ownUserID: UInt32
    private let inspector: ProcessInspector
    private let log: AccessLog?
    /// Connections of other users already recorded in the log, so a client calling in a loop on one connection is
    /// logged once.
    private var refusedOthers: Set<BusName> = []

    init(sender: any MessageSender, ownUserID: UInt32, inspector: ProcessInspector = ProcessInspector(),
         log: AccessLog? = nil) {
        self.sender = sender
        self.ownUserID = ownUserID
        self.inspector = inspector
        self.log = log
    }

    /// The caller behind `name`.
    /// - Parameter receivedAt: when the call being answered arrived (``ProcessInspector/bootTicks()``).
    /// - Throws: `accessDenied` for another user's process, or one that cannot be identified.
    func caller(_ name: BusName, receivedAt: UInt64) async throws(SecretServiceError) -> Caller {
        if let known = resolved[name] { return known }
        guard let credentials = await sender.connectionCredentials(of: name) else {
            throw .accessDenied("the bus cannot tell who the caller is")
        }
        defer { if let fd = credentials.processFD { close(fd) } }
        guard let uid = credentials.unixUserID, uid == ownUserID else {
            if let log, refusedOthers.insert(name).inserted {
                await log.record(AccessLogEntry(time: AccessGate.now(), outcome: .otherUser,
                                                application: credentials.unixUserID.map { "uid:\($0)" } ?? "uid:?",
                                                processID: credentials.processID ?? 0, collection: ""))
            }
            throw .accessDenied("only processes of the user cofferd runs for may use it")
        }
        guard let pid = credentials.processID, let processID = Int32(exactly: pid) else {
            throw .accessDenied("the bus does not know the caller's process")
        }
        let caller: Caller
        do {
            caller = try inspector.caller(pid: processID, receivedAt: receivedAt, processFD: credentials.processFD)
        } catch {
            throw .accessDenied("the caller could not be identified: \(error)")
        }
        // Another call of the same client may have resolved it meanwhile; both saw the same process.
        if let known = resolved[name] { return known }
        resolved[name] = caller
        return caller
    }

    /// The caller behind `name` if it was resolved already.
    func known(_ name: BusName) -> Caller? { resolved[name] }

    /// Forgets a client that left the bus.
    func clientVanished(_ name: BusName) {
        resolved[name] = nil
        refusedOthers.remove(name)
    }
}
