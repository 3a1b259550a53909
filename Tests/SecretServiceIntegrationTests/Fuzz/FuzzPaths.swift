// SPDX-License-Identifier: Apache-2.0
// The object paths the fuzzer aims at: real objects of every kind, other clients' objects, and paths that name nothing.

import DBusWire
import SecretServiceProtocol
import SecretServiceTestSupport

/// A bounded pool of object paths, grouped by what they name. Paths in replies are added as the run goes, so calls
/// reach objects that earlier calls created; paths under the checked client's collection are never added, so hostile
/// calls cannot legitimately change what the valid traffic checks.
struct FuzzPaths {
    static let capacityPerKind = 256
    private(set) var byKind: [FuzzNodeKind: [ObjectPath]] = [:]
    /// Path prefixes hostile calls must not reach (the valid client's collection and its alias).
    let excluded: [String]
    /// Which hostile connection a session or prompt came from, so a caller can use its own most of the time.
    private var owners: [ObjectPath: Int] = [:]

    /// Paths that are well formed but name nothing, or name something under a part of the tree that has no objects.
    static let nowhere: [ObjectPath] = [
        "/", "/org", "/org/freedesktop", "/org/freedesktop/secrets/collection",
        "/org/freedesktop/secrets/collection/nope", "/org/freedesktop/secrets/collection/login/999999",
        "/org/freedesktop/secrets/collection/login/1/extra", "/org/freedesktop/secrets/session/0",
        "/org/freedesktop/secrets/session/18446744073709551616", "/org/freedesktop/secrets/session/x/y",
        "/org/freedesktop/secrets/prompt/0", "/org/freedesktop/secrets/prompt/99999999999",
        "/org/freedesktop/secrets/aliases/nope", "/org/freedesktop/secrets/aliases/default/nope",
        "/org/freedesktop/secrets/aliases", "/org/freedesktop/secretsx", "/org/freedesktop/secrets/bogus/1",
        "/org/freedesktop/secrets/collection/_", "/org/freedesktop/secrets/collection/login_1",
        "/org/freedesktop/DBus",
        ObjectPath(unchecked: "/org/freedesktop/secrets/collection/" + String(repeating: "a", count: 200)),
    ]

    init(excluding excluded: [String]) {
        self.excluded = excluded
    }

    /// What a path names, judged from its shape.
    static func kind(of path: ObjectPath) -> FuzzNodeKind {
        switch SecretObjectPath(path) {
        case .service?: .service
        case .collection?, .alias?: .collection
        case .item?, .aliasItem?: .item
        case .session?: .session
        case .prompt?: .prompt
        case nil: .service
        }
    }

    /// Adds a path (unless excluded), replacing a random one of its kind when the pool is full.
    /// - Parameter owner: the connection whose reply named it.
    mutating func add(_ path: ObjectPath, owner: Int? = nil, using random: inout SeededRandom) {
        if let owner, owners[path] == nil { owners[path] = owner }
        guard !excluded.contains(where: { path.rawValue.hasPrefix($0) }), SecretObjectPath(path) != nil else { return }
        let kind = Self.kind(of: path)
        var paths = byKind[kind, default: []]
        guard !paths.contains(path) else { return }
        if paths.count < Self.capacityPerKind {
            paths.append(path)
        } else {
            paths[random.below(paths.count)] = path
        }
        byKind[kind] = paths
    }

    /// Adds every object path found anywhere inside `values`, a reply to connection `owner`.
    mutating func harvest(_ values: [DBusValue], owner: Int? = nil, using random: inout SeededRandom) {
        for value in values {
            switch value {
            case .objectPath(let path): add(path, owner: owner, using: &random)
            case .array(_, let elements), .structure(let elements): harvest(elements, owner: owner, using: &random)
            case .dictionary(_, _, let entries):
                harvest(entries.flatMap { [$0.key, $0.value] }, owner: owner, using: &random)
            case .variant(let inner): harvest([inner], owner: owner, using: &random)
            default: continue
            }
        }
    }

    /// A real path of `kind` most of the time (so calls get past resolution), sometimes a path that names nothing,
    /// otherwise any real path at all.
    /// Sessions and prompts are the caller's own (when it has any) more often than other clients'.
    func random(_ kind: FuzzNodeKind?, for caller: Int? = nil, using random: inout SeededRandom) -> ObjectPath {
        let roll = random.below(100)
        if roll < 10 { return random.pick(Self.nowhere) }
        // One object of its kind, which no reply names.
        if kind == .portal, roll < 85 { return FuzzMembers.portalPath }
        if let kind, let caller, kind == .session || kind == .prompt, roll < 60,
           let own = byKind[kind]?.filter({ owners[$0] == caller }), !own.isEmpty {
            return random.pick(own)
        }
        if let kind, roll < 85, let paths = byKind[kind], !paths.isEmpty { return random.pick(paths) }
        let all = byKind.values.flatMap { $0 }
        return all.isEmpty ? random.pick(Self.nowhere) : random.pick(all)
    }
}
