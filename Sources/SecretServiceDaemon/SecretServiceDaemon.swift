// SPDX-License-Identifier: Apache-2.0
// The daemon as a service: owns the bus name, serves calls, and shuts down gracefully.

import CHardening
import DBusTransport
import DBusWire
import SecretCrypto
public import Logging
import SecretServiceProtocol
public import ServiceLifecycle
public import SecretStore

/// Runs the Secret Service on a bus until the connection drops, the name is taken over, or graceful shutdown.
public final class SecretServiceDaemon: Service {
    let configuration: DaemonConfiguration
    let logger: Logger
    /// The state owner, exposed so an embedding process (tests, tools) can inspect it.
    public let store: SecretStore
    private let ready: AsyncStream<String>.Continuation
    /// Yields the daemon's unique bus name once it owns `org.freedesktop.secrets` and serves calls.
    public let readiness: AsyncStream<String>

    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // The store stamps uses on the clock the AutoLocker sleeps on.
        self.store = SecretStore(directory: configuration.dataDirectory,
                                 keyDerivation: configuration.keyDerivation, usageClock: UsageClock(ContinuousClock()),
                                 logger: logger)
        (readiness, ready) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func run() async throws {
        // Before the name: a second daemon on this directory must not even compete for it. With --replace the
        // name comes first (replaceProvider), so that a refusal leaves no file behind.
        let openedForHolder = configuration.replace ? nil : try await takeDataDirectory()
        // Bound before the bus, so a PAM session that starts while this daemon loads finds the socket rather than
        // starting a second cofferd; requests wait in it until the collections are loaded. A daemon being replaced
        // holds it until it has let go of the data directory.
        var loginChannel = configuration.replace ? nil : openLoginChannel()
        let connection: Connection
        if let openedForHolder { connection = openedForHolder } else { connection = try await connect() }
        // A call past the argument limit is refused before it is decoded, which costs several times a body's size.
        // The margin covers the alignment padding the router's count leaves out.
        await connection.setMaximumIncomingBodySize(configuration.clientLimits.maximumCallBytes + 64 * 1024)
        let agentTimeout = (configuration.prompter as? PinentryPrompter)?.configuration.timeout ?? .seconds(300)
        let router = Router(store: store, prompter: configuration.prompter,
                            sender: ConnectionSender(connection: connection, logger: logger),
                            clientLimits: configuration.clientLimits, promptAgentTimeout: agentTimeout,
                            accessPolicy: configuration.accessPolicy, logger: logger)
        // Before any call can change a password: the access log must hear of every master key change.
        await router.followKeyChanges()
        try await connection.registerObjectTree(at: SecretServiceNames.servicePath)
        // The Secret portal's backend: xdg-desktop-portal calls whichever name its .portal file gives
        // (dbus/coffer.portal says org.freedesktop.secrets) at this path.
        try await connection.registerObjectTree(at: SecretServiceNames.portalPath)
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
        if configuration.replace {
            try await replaceProvider(on: connection)
            loginChannel = openLoginChannel()
        }
        let pendingUnlock = try await bootstrapCollections()
        Self.returnFreedMemory()
        // The key derivation starts now, beside the name claim and the first calls, rather than after them.
        let unlocking = pendingUnlock.map { pending in Task { await self.finishUnlock(pending) } }
        if !configuration.replace {
            do {
                try await claimName(on: connection)
            } catch {
                // A password not yet read is no longer waited for; a derivation under way cannot be interrupted,
                // and the store is not left mid-unlock.
                unlocking?.cancel()
                await unlocking?.value
                throw error
            }
        }
        logger.info("serving org.freedesktop.secrets", metadata: ["dbus.unique": "\(connection.uniqueName)"])
        // Start-up is over unless an unlock still runs, which ends it instead (finishUnlock).
        if unlocking == nil { releaseStartupPages() }
        ready.yield(connection.uniqueName.rawValue)
        ready.finish()

        // Calls, the store and the signals all run on the connection's loop thread: a call then crosses no thread
        // between libdbus and its reply (thread wake-ups dominated the cost of a lookup). The store runs its
        // Argon2id work on the global executor, so an unlock does not stall the bus.
        await withTaskExecutorPreference(connection.taskExecutor) {
        await withTaskGroup(of: Void.self) { background in
            // Signals wait for a moment when no call is waiting (BusLoop's background jobs): a lookup that
            // arrives while another client stores is answered before the store's signals go out.
            background.addTask(priority: .background) { await router.publishChanges() }
            if let unlocking {
                // Stops waiting for a password nobody wrote at graceful shutdown (see LoginPasswordInput): calls
                // held back for the unlock are then answered, and serving can end.
                background.addTask {
                    await withGracefulShutdownHandler {
                        await withTaskCancellationHandler { await unlocking.value } onCancel: { unlocking.cancel() }
                    } onGracefulShutdown: {
                        unlocking.cancel()
                    }
                }
            }
            if configuration.autoLock.locksAnything {
                let autoLocker = AutoLocker(store: store, policy: configuration.autoLock, clock: ContinuousClock(),
                                            logger: logger)
                background.addTask { await autoLocker.run() }
            }
            if let channel = loginChannel {
                background.addTask { await self.serveLoginChannel(channel) }
            }
            if configuration.autoLock.locksOnSessionEvents {
                let watcher = SessionLockWatcher(store: store, policy: configuration.autoLock,
                                                 sessionID: configuration.loginSessionID, logger: logger)
                background.addTask { await watcher.run() }
            }
            // Other devices' journals of synchronized collections (docs/SYNC.md).
            let syncWatcher = SyncFolderWatcher(store: store, logger: logger)
            background.addTask { await syncWatcher.run() }
            await self.serve(router: router, connection: connection)
            background.cancelAll()
        }
        }
        await loginChannel?.close()
        // Release the data directory now, and only then leave the bus: a successor (--replace, D-Bus activation
        // for the next call, a restart in the same process) may be waiting for it, and it waits only while this
        // daemon is still on the bus (takeDataDirectory).
        await store.close()
        await connection.close()
        logger.info("stopped")
    }

    /// Why the daemon stopped reading messages.
    private enum Ending {
        case messagesFinished
        case nameLost
    }

    /// Dispatches calls concurrently until the bus goes away, the name is lost or graceful shutdown, then waits for
    /// calls in flight to be answered.
    private func serve(router: Router, connection: Connection) async {
        await withDiscardingTaskGroup { calls in
            // Graceful shutdown finishes the message stream rather than cancelling this task: cancellation would
            // reach the calls in flight, which are to be answered. Messages already received are still dispatched.
            let ending = await withGracefulShutdownHandler { () async -> Ending in
                for await message in connection.messages {
                    guard message.kind == .methodCall else {
                        message.closeReceivedUnixFileDescriptors()
                        if await handleBusSignal(message, router: router, connection: connection) { return .nameLost }
                        continue
                    }
                    // A call's descriptors (the Secret portal's, or whatever a client attached) are closed once it
                    // is handled, which keeps our table from filling.
                    calls.addTask {
                        await router.handle(message)
                        message.closeReceivedUnixFileDescriptors()
                    }
                }
                return .messagesFinished
            } onGracefulShutdown: {
                connection.finishMessages()
            }
            guard ending == .messagesFinished else { return }
            guard Task.isShuttingDownGracefully else {
                logger.info("the bus connection closed")
                return
            }
            logger.info("shutting down")
            await router.dismissAllPrompts()
            // Release the name first so new clients reach a successor while answers in flight go out.
            try? await connection.releaseName(SecretServiceNames.busName)
        }
    }

    /// Reacts to bus signals; returns `true` when the daemon must stop (its name was taken over).
    private func handleBusSignal(_ message: Message, router: Router, connection: Connection) async -> Bool {
        guard message.sender?.rawValue == "org.freedesktop.DBus", message.interface?.rawValue == "org.freedesktop.DBus"
        else { return false }
        switch message.member?.rawValue {
        case "NameOwnerChanged":
            guard message.body.count == 3, let name = message.body[0].string, let newOwner = message.body[2].string,
                  newOwner.isEmpty, name.hasPrefix(":"), let vanished = BusName(name)
            else { return false }
            await router.clientVanished(vanished)
            return false
        case "NameLost":
            guard message.body.first?.string == SecretServiceNames.busName.rawValue else { return false }
            // Loud: from here on clients reach whoever owns the name now, not us.
            logger.error("lost org.freedesktop.secrets to another connection; exiting")
            return true
        default:
            return false
        }
    }

    /// `--replace`: the name first, then the files. A provider that does not allow replacement (gnome-keyring)
    /// refuses here, before any file or directory is created, so a failed `--replace` leaves nothing behind. Once
    /// the name is ours the replaced provider shuts down; if it is a cofferd holding this data directory, wait
    /// for it to let go. Calls that arrive meanwhile wait in the connection until the files are loaded.
    private func replaceProvider(on connection: Connection) async throws {
        let previousOwner = try? await connection.processID(of: SecretServiceNames.busName)
        // A holder that is not the provider being replaced (a cofferd on another bus) keeps its directory, and
        // the name is left alone.
        if let directory = configuration.dataDirectory {
            let holder = DirectoryLock.holder(of: directory)
            if holder.held, holder.pid == nil || previousOwner == nil || UInt32(holder.pid!) != previousOwner {
                throw DaemonError.dataDirectoryInUse("the data directory \(directory) is in use by another cofferd"
                    + (holder.pid.map { " (pid \($0))" } ?? ""))
            }
        }
        try await claimName(on: connection)
        try await waitForDataDirectory()
    }

    func connect() async throws -> Connection {
        do {
            if let address = configuration.busAddress {
                return try await Connection.connect(address: address, logger: logger)
            }
            return try await Connection.connectToSessionBus(logger: logger)
        } catch {
            throw DaemonError.noBus("\(error)")
        }
    }

    private func claimName(on connection: Connection) async throws {
        var flags: RequestNameFlags = [.doNotQueue]
        if configuration.allowReplacement { flags.insert(.allowReplacement) }
        if configuration.replace { flags.insert(.replaceExisting) }
        switch try await connection.requestName(SecretServiceNames.busName, flags: flags) {
        case .primaryOwner, .alreadyOwner:
            return
        case .exists, .inQueue:
            let owner = try? await connection.nameOwner(of: SecretServiceNames.busName)
            throw DaemonError.nameTaken(owner: owner?.rawValue, replacing: configuration.replace)
        }
    }

    /// Verifying the collection files leaves their transient buffers (whole files, decoded records) in the heap;
    /// glibc's `malloc_trim` hands that memory back before serving, so the resident size is what the daemon keeps.
    static func returnFreedMemory() {
        chardening_return_freed_memory()
    }

    /// Once start-up is over: the pages only start-up ran go back (``StartupPages``), with its heap.
    func releaseStartupPages() {
        Self.returnFreedMemory()
        let advised = StartupPages.release()
        logger.debug("released start-up pages", metadata: ["bytes": "\(advised)"])
    }
}

/// Delivers the router's messages on the bus connection.
struct ConnectionSender: MessageSender {
    let connection: Connection
    let logger: Logger

    func deliver(_ message: Message) async {
        do {
            try await connection.send(message)
        } catch {
            logger.warning("could not send a message", metadata: ["error": "\(error)"])
        }
    }

    func call(_ message: Message, timeout: Duration) async throws -> Message {
        try await connection.call(message, timeout: timeout)
    }

    func connectionCredentials(of name: BusName) async -> ConnectionCredentials? {
        do {
            return try await connection.connectionCredentials(of: name)
        } catch {
            logger.warning("could not ask the bus for a client's credentials", metadata: ["error": "\(error)"])
            return nil
        }
    }

    func isOnBus(_ name: BusName) async -> Bool {
        do {
            return try await connection.nameOwner(of: name) != nil
        } catch {
            logger.warning("could not ask the bus whether a client is connected", metadata: ["error": "\(error)"])
            return true
        }
    }
}
