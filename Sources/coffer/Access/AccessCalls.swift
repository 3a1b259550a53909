// SPDX-License-Identifier: Apache-2.0
// Calls of cofferd's io.coffer.Access interface: list who created and may use each item, revoke "always allow".

import DBusTransport
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

/// One item as `ListAccess` reports it, or a whole collection as `CollectionAccess` does (with `item` empty), or
/// one access group as `GroupAccess` does (with `item` empty and `group` set).
struct AccessEntry: Encodable {
    var collection: String
    /// The item's object path; empty for the whole collection or an access group.
    var item: String
    /// The identity that created the item; empty when none is recorded.
    var creator: String
    var allowed: [String]
    /// The `Keychain` access group the entry allows; absent for items and the whole collection.
    var group: String? = nil
}

/// What `ReadLog` reports: the entries of unlocked collections, how many it could not open, what was wrong.
struct AccessLogReport {
    var entries: [AccessLogLine]
    /// Entries of locked collections.
    var locked: Int
    /// Entries of collections deleted since.
    var keyGone: Int
    /// Damage or tampering found, one sentence each.
    var problems: [String]
}

/// One entry of the access log as `ReadLog` reports it.
struct AccessLogLine: Encodable {
    /// Seconds since 1970.
    var time: UInt64
    var outcome: String
    /// The identity, as `coffer access list` shows it and `grant`/`revoke` take it.
    var application: String
    /// The name prompts show for the application.
    var name: String
    var pid: UInt32
    /// The collection id; empty for a decision about no collection (another user's call).
    var collection: String
    /// The item's object path; empty for the whole collection.
    var item: String
    /// The identity of the program that asked for the change, when it is not the application.
    var requester: String
    /// How many times it happened (uses of one item by one process written together are one entry).
    var count: UInt32
    /// Seconds since 1970 of the last of them; `time` is the first.
    var lastTime: UInt64

    init(time: UInt64, outcome: String, application: String, name: String, pid: UInt32, object: ObjectPath,
         requester: String, count: UInt32 = 1, lastTime: UInt64? = nil) {
        self.time = time
        self.outcome = outcome
        self.application = application
        self.name = name
        self.pid = pid
        switch SecretObjectPath(object) {
        case .item(let collection, _)?:
            self.collection = collection
            item = object.rawValue
        case .collection(let collection)?:
            self.collection = collection
            item = ""
        default:
            collection = ""
            item = ""
        }
        self.requester = requester
        self.count = count
        self.lastTime = lastTime ?? time
    }
}

extension SecretService {
    /// `ListAccess(o collection) → a(osas)`.
    func access(of collection: ObjectPath) async throws -> [AccessEntry] {
        let body = try await callAccess("ListAccess", [.objectPath(collection)])
        guard case .array(_, let entries)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("ListAccess returned no list")
        }
        let id = CollectionReference(path: collection).id
        return try entries.map { entry in
            guard case .structure(let fields) = entry, fields.count == 3, let item = fields[0].objectPath,
                  let creator = fields[1].string, case .array(_, let allowed) = fields[2]
            else { throw SecretServiceClientError.unexpectedReply("ListAccess returned a malformed item") }
            return AccessEntry(collection: id, item: item.rawValue, creator: creator,
                               allowed: allowed.compactMap(\.string))
        }
    }

    /// `Revoke(o collection, s application, ao items) → ao`.
    func revokeAccess(of application: String, in collection: ObjectPath, items: [ObjectPath]) async throws
        -> [ObjectPath] {
        let body = try await callAccess("Revoke", [.objectPath(collection), .string(application), .objectPaths(items)])
        guard case .array(_, let revoked)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("Revoke returned no list")
        }
        return revoked.compactMap(\.objectPath)
    }

    /// `CollectionAccess(o collection) → as`.
    func collectionAccess(of collection: ObjectPath) async throws -> [String] {
        let body = try await callAccess("CollectionAccess", [.objectPath(collection)])
        guard case .array(_, let applications)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("CollectionAccess returned no list")
        }
        return applications.compactMap(\.string)
    }

    /// `GroupAccess(o collection) → a(ss)`: the applications allowed per access group.
    func groupAccess(of collection: ObjectPath) async throws -> [String: [String]] {
        let body = try await callAccess("GroupAccess", [.objectPath(collection)])
        guard case .array(_, let pairs)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("GroupAccess returned no list")
        }
        var groups: [String: [String]] = [:]
        for pair in pairs {
            guard case .structure(let fields) = pair, fields.count == 2, let group = fields[0].string,
                  let application = fields[1].string else { continue }
            groups[group, default: []].append(application)
        }
        return groups
    }

    /// `Grant(o collection, s application, ao items) → o prompt`, with the prompt run to its end.
    /// - Returns: what was granted (items, or the collection's path).
    /// - Throws: ``SecretServiceClientError/dismissed`` when the user turned the grant down.
    func grantAccess(to application: String, in collection: ObjectPath, items: [ObjectPath]) async throws
        -> [ObjectPath] {
        let body = try await callAccess("Grant", [.objectPath(collection), .string(application), .objectPaths(items)])
        guard let prompt = body.first?.objectPath else {
            throw SecretServiceClientError.unexpectedReply("Grant returned no prompt")
        }
        switch try await runPrompt(prompt) {
        case .dismissed: throw SecretServiceClientError.dismissed
        case .completed(let result): return result.arrayElements?.compactMap(\.objectPath) ?? []
        case .notNeeded: return []
        }
    }

    /// `ReadLog(t since) → (a(tsssuosut), u, u, as)`; entries without count and last time (a cofferd before
    /// entries were counted) count once.
    func accessLog(since: UInt64) async throws -> AccessLogReport {
        let body = try await callAccess("ReadLog", [.uint64(since)])
        guard body.count == 4, case .array(_, let entries) = body[0], let locked = body[1].uint32,
              let keyGone = body[2].uint32, case .array(_, let problems) = body[3]
        else { throw SecretServiceClientError.unexpectedReply("ReadLog returned no list") }
        let lines = try entries.map { entry in
            guard case .structure(let fields) = entry, fields.count == 7 || fields.count == 9,
                  let time = fields[0].uint64, let outcome = fields[1].string, let application = fields[2].string,
                  let name = fields[3].string, let pid = fields[4].uint32, let object = fields[5].objectPath,
                  let requester = fields[6].string
            else { throw SecretServiceClientError.unexpectedReply("ReadLog returned a malformed entry") }
            var (count, lastTime): (UInt32, UInt64?) = (1, nil)
            if fields.count == 9 {
                guard let written = fields[7].uint32, let last = fields[8].uint64 else {
                    throw SecretServiceClientError.unexpectedReply("ReadLog returned a malformed entry")
                }
                (count, lastTime) = (written, last)
            }
            return AccessLogLine(time: time, outcome: outcome, application: application, name: name, pid: pid,
                                 object: object, requester: requester, count: count, lastTime: lastTime)
        }
        return AccessLogReport(entries: lines, locked: Int(locked), keyGone: Int(keyGone),
                               problems: problems.compactMap(\.string))
    }

    private func callAccess(_ member: MemberName, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await callServiceObject(SecretServiceNames.accessInterface, member, arguments)
    }
}
