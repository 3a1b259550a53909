// SPDX-License-Identifier: Apache-2.0
// Which bus, access group and options the SecItem functions use: per process, overridable per task.

import Foundation
import Synchronization

/// The settings the `SecItem…` functions run with.
///
/// The functions read ``current``: the value bound with `withConfiguration(_:operation:)`
/// for the calling task if there is one, else the process-wide ``processDefault``. Binding per task lets tests
/// (and programs talking to several buses) run side by side without touching the process environment.
public struct KeychainConfiguration: Sendable, Hashable {
    /// The D-Bus address of the bus the provider is on; `nil` means the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public var busAddress: String?
    /// The access group new items go to; `nil` means the first of ``accessGroups``, else `COFFER_ACCESS_GROUP`,
    /// else the first group of `COFFER_KEYCHAIN_ACCESS_GROUPS`, else the program's own: its Flatpak app id
    /// (`FLATPAK_ID`) in a Flatpak sandbox, else the executable's name.
    public var accessGroup: String?
    /// The access groups this program may use, standing in for iOS's `keychain-access-groups` entitlement: new
    /// items go to the first unless they name another listed group, an add naming an unlisted group fails with
    /// `errSecMissingEntitlement`, and a search, update or delete without `kSecAttrAccessGroup` covers them all.
    /// `nil` means the list in `COFFER_KEYCHAIN_ACCESS_GROUPS` (separated by `:` or `,`), else only the default
    /// group (and no write is refused).
    public var accessGroups: [String]?
    /// Whether generic passwords also carry `username` (= account), so python keyring, keyring-rs and
    /// go-keyring find them.
    public var mirrorsUsername: Bool
    /// Whether a `plain` transfer session is acceptable when the provider refuses Diffie-Hellman.
    public var allowsPlainSession: Bool
    /// Where the cross-process write lock lives; `nil` means `$XDG_RUNTIME_DIR`, or `coffer` in the user's cache
    /// directory (`$XDG_CACHE_HOME` or `~/.cache`) when there is no private runtime directory. It must be a
    /// directory (not a symlink) owned by the user and closed to group and others; without one, writes fail with
    /// `errSecNotAvailable`.
    public var lockDirectory: String?
    /// Whether searches that find none of this library's items fall back to items other programs wrote
    /// (secret-tool, python keyring, keytar…) without its markers (mapping §6.9). Off by default: such items are
    /// outside any access group, so adopting them is the caller's decision. Adopted items count as the default
    /// access group and not synchronizable; the next write through this library adds the markers.
    public var adoptsForeignItems: Bool
    /// The collection items added with `kSecAttrSynchronizable = true` go to when the default collection is not
    /// synchronized: its id (the last part of its object path, as `coffer list-keychains` shows it) or its label.
    /// `nil` means `COFFER_KEYCHAIN_SYNC_COLLECTION`, else the one synchronized collection when there is exactly
    /// one. It is used only while the provider reports it synchronized (docs/SYNC.md); otherwise such items go to
    /// the default collection, as with providers that synchronize nothing.
    public var synchronizedCollection: String?

    /// - Parameters:
    ///   - busAddress: the provider's bus, or `nil` for the session bus.
    ///   - accessGroup: the default access group, or `nil` for the environment or executable name.
    ///   - accessGroups: the groups searched by default, or `nil` for just the default group.
    ///   - mirrorsUsername: whether generic passwords get a `username` attribute too.
    ///   - allowsPlainSession: whether to fall back to an unencrypted transfer session.
    ///   - lockDirectory: the lock file's directory, or `nil` for the default.
    ///   - adoptsForeignItems: whether searches fall back to items without this library's markers.
    ///   - synchronizedCollection: where synchronizable items go when the default collection is not synchronized.
    public init(busAddress: String? = nil, accessGroup: String? = nil, accessGroups: [String]? = nil,
                mirrorsUsername: Bool = true, allowsPlainSession: Bool = false, lockDirectory: String? = nil,
                adoptsForeignItems: Bool = false, synchronizedCollection: String? = nil) {
        self.busAddress = busAddress
        self.accessGroup = accessGroup
        self.accessGroups = accessGroups
        self.mirrorsUsername = mirrorsUsername
        self.allowsPlainSession = allowsPlainSession
        self.lockDirectory = lockDirectory
        self.adoptsForeignItems = adoptsForeignItems
        self.synchronizedCollection = synchronizedCollection
    }

    // MARK: - Which configuration applies

    private static let processWide = Mutex(KeychainConfiguration())
    @TaskLocal private static var taskBound: KeychainConfiguration?

    /// The configuration of calls made outside `withConfiguration(_:operation:)`.
    public static var processDefault: KeychainConfiguration {
        get { processWide.withLock { $0 } }
        set { processWide.withLock { $0 = newValue } }
    }

    /// The configuration a `SecItem…` call made here would use.
    public static var current: KeychainConfiguration { taskBound ?? processDefault }

    /// Runs `operation` with `configuration` in force for every `SecItem…` call it makes (synchronously or in
    /// child tasks).
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - operation: the work.
    /// - Returns: what `operation` returns.
    /// - Throws: what `operation` throws.
    public static func withConfiguration<T>(_ configuration: KeychainConfiguration,
                                            operation: () async throws -> T) async rethrows -> T {
        try await $taskBound.withValue(configuration, operation: operation)
    }

    /// Runs `operation` synchronously with `configuration` in force for its `SecItem…` calls.
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - operation: the work.
    /// - Returns: what `operation` returns.
    /// - Throws: what `operation` throws.
    public static func withConfiguration<T>(_ configuration: KeychainConfiguration,
                                            operation: () throws -> T) rethrows -> T {
        try $taskBound.withValue(configuration, operation: operation)
    }

    // MARK: - Resolved values

    /// The environment variable listing the access groups a program may use (``accessGroups``).
    public static let accessGroupsVariable = "COFFER_KEYCHAIN_ACCESS_GROUPS"

    /// The default access group after applying the fallbacks of mapping §7.4.
    package var resolvedAccessGroup: String {
        if let accessGroup, !accessGroup.isEmpty { return accessGroup }
        if let first = accessGroups?.first(where: { !$0.isEmpty }) { return first }
        if let group = Self.variable("COFFER_ACCESS_GROUP"), !group.isEmpty { return group }
        if let first = Self.groups(listed: Self.variable(Self.accessGroupsVariable) ?? "").first { return first }
        let sandbox = Self.variable("FLATPAK_ID").map { ["FLATPAK_ID": $0] } ?? [:]
        return Self.ownGroup(environment: sandbox, executable: CommandLine.arguments.first ?? "")
    }

    /// The group a program has of its own, as cofferd tells applications apart: a Flatpak's app id (which cofferd
    /// reads from the sandbox, not from this variable, so the name only says which group to use), else the
    /// executable's name.
    package static func ownGroup(environment: [String: String], executable: String) -> String {
        if let app = environment["FLATPAK_ID"], !app.isEmpty { return app }
        let name = URL(fileURLWithPath: executable).lastPathComponent
        return name.isEmpty ? ProcessInfo.processInfo.processName : name
    }

    /// The groups this program was given (the field, else the environment), or `nil` when none were: then any
    /// group may be written, as before access groups were listed.
    package var listedAccessGroups: [String]? {
        let listed = accessGroups?.filter { !$0.isEmpty }
            ?? Self.groups(listed: Self.variable(Self.accessGroupsVariable) ?? "")
        guard !listed.isEmpty else { return nil }
        // The default group is always usable, as iOS puts the app's own identifier in the list.
        return listed.contains(resolvedAccessGroup) ? listed : [resolvedAccessGroup] + listed
    }

    /// The environment variable naming the collection for synchronizable items (``synchronizedCollection``).
    public static let synchronizedCollectionVariable = "COFFER_KEYCHAIN_SYNC_COLLECTION"

    /// The collection named for synchronizable items (the field, else the environment), or `nil` for none.
    package var resolvedSynchronizedCollection: String? {
        resolvedSynchronizedCollection(environment: Self.variable(Self.synchronizedCollectionVariable))
    }

    /// ``resolvedSynchronizedCollection`` with `value` standing for the variable (`nil`: unset), so it can be checked
    /// without changing the process environment.
    package func resolvedSynchronizedCollection(environment value: @autoclosure () -> String?) -> String? {
        (synchronizedCollection ?? value()).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The groups searched when a query names none.
    package var resolvedAccessGroups: [String] { listedAccessGroups ?? [resolvedAccessGroup] }

    /// The groups `COFFER_KEYCHAIN_ACCESS_GROUPS` lists in `environment`, in order, without empty entries.
    package static func groups(in environment: [String: String]) -> [String] {
        groups(listed: environment[accessGroupsVariable] ?? "")
    }

    /// The groups in a `COFFER_KEYCHAIN_ACCESS_GROUPS` value.
    private static func groups(listed text: String) -> [String] {
        text.split(whereSeparator: { $0 == ":" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// One environment variable. getenv reads just that one; ProcessInfo's environment copies them all, and the
    /// resolved groups are needed on every call.
    private static func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The key that identifies the bus: the explicit address, else the session bus address now in the environment.
    package var busKey: String {
        // getenv reads one variable; ProcessInfo's environment copies them all, and this runs on every call.
        busAddress ?? "session:" + (getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) } ?? "")
    }
}
