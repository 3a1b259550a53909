// SPDX-License-Identifier: Apache-2.0
// The convenience client: one connection, one transfer session, and operations that run their prompts.

public import DBusTransport
public import DBusWire
public import Logging
public import SecretServiceProtocol
import Synchronization

/// A connection to a Secret Service provider (cofferd, gnome-keyring, KeePassXC, …) with an open transfer session.
///
/// Every operation is a few calls of the raw proxies (``ServiceProxy``, ``CollectionProxy``, ``ItemProxy``); any
/// prompt an operation returns is run to its end with ``runPrompt(_:windowID:)``. Errors are
/// `SecretServiceError` (the provider said no), ``SecretServiceClientError`` (no provider, transport, dismissed,
/// malformed reply) or `CancellationError`.
///
/// The instance owns the connection's incoming message stream (see ``subscribe(to:)``). Call ``close()`` when done.
public final class SecretService: Sendable {
    /// The underlying bus connection, for raw calls (tests, diagnostics). Do not iterate its `messages`: this
    /// instance consumes them; use ``subscribe(to:)`` for signals.
    public let connection: Connection
    /// The provider's bus name (normally `org.freedesktop.secrets`).
    public let destination: BusName
    /// The transfer session every secret of this instance travels in.
    public let session: ClientSession
    let router: SignalRouter
    private let pump: Task<Void, Never>
    let logger: Logger
    /// Whether the provider answers `io.coffer.Items.GetItemProperties`, learnt from the first batch read (see
    /// ``itemProperties(of:)``). An atomic, not a lock: it is one word that only ever moves from "unknown" to an
    /// answer, and readers on any thread need it without waiting.
    let itemBatch = Atomic<UInt8>(ExtensionSupport.unknown)
    /// Whether the provider answers `io.coffer.Items.SearchOldestFirst`, learnt from the first such search (see
    /// ``searchOldestFirst(_:excluding:)``), kept the same way.
    let oldestFirstSearch = Atomic<UInt8>(ExtensionSupport.unknown)

    private init(connection: Connection, destination: BusName, session: ClientSession, router: SignalRouter,
                 pump: Task<Void, Never>, logger: Logger) {
        self.connection = connection
        self.destination = destination
        self.session = session
        self.router = router
        self.pump = pump
        self.logger = logger
    }

    // MARK: - Connecting

    /// Connects to a bus and opens a transfer session with the provider.
    /// - Parameters:
    ///   - address: a D-Bus address; `nil` means the session bus.
    ///   - algorithm: the session algorithm to try first.
    ///   - allowPlainFallback: whether to accept a `plain` session when the provider answers DH with `NotSupported`.
    ///   - destination: the provider's bus name.
    ///   - logger: for diagnostics (never secrets).
    ///   - signalExecutor: where signals (prompt completions) are pumped; `nil` is the global concurrency pool.
    ///   - signalsOnConnectionLoop: pump signals on the new connection's own loop thread (its
    ///     `Connection/taskExecutor`) instead, which no other work can starve; `signalExecutor` is then ignored.
    /// - Returns: the connected client.
    /// - Throws: ``SecretServiceClientError/noProvider`` when no provider runs or can be started,
    ///   ``SecretServiceClientError/transport(_:)`` when the bus cannot be reached, or the session's errors.
    public static func connect(address: String? = nil, algorithm: SessionAlgorithm = .dh,
                               allowPlainFallback: Bool = false,
                               destination: BusName = SecretServiceNames.busName,
                               logger: Logger = Logger(label: "coffer.client"),
                               signalExecutor: (any TaskExecutor)? = nil,
                               signalsOnConnectionLoop: Bool = false) async throws -> SecretService {
        let connection: Connection
        do {
            if let address {
                connection = try await Connection.connect(address: address, logger: logger)
            } else {
                connection = try await Connection.connectToSessionBus(logger: logger)
            }
        } catch {
            throw ProxyTarget.translate(error)
        }
        do {
            return try await connect(using: connection, algorithm: algorithm, allowPlainFallback: allowPlainFallback,
                                     destination: destination, logger: logger,
                                     signalExecutor: signalsOnConnectionLoop ? connection.taskExecutor : signalExecutor)
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Opens a transfer session over an existing connection and takes over its incoming messages.
    /// - Parameters:
    ///   - connection: a connection whose `messages` nobody else iterates.
    ///   - algorithm: the session algorithm to try first.
    ///   - allowPlainFallback: whether to accept a `plain` session when DH is refused with `NotSupported`.
    ///   - destination: the provider's bus name.
    ///   - logger: for diagnostics.
    ///   - signalExecutor: where signals (prompt completions) are pumped; `nil` is the global concurrency pool.
    /// - Returns: the client; ``close()`` closes `connection` too.
    /// - Throws: as ``connect(address:algorithm:allowPlainFallback:destination:logger:signalExecutor:signalsOnConnectionLoop:)``.
    public static func connect(using connection: Connection, algorithm: SessionAlgorithm = .dh,
                               allowPlainFallback: Bool = false,
                               destination: BusName = SecretServiceNames.busName,
                               logger: Logger = Logger(label: "coffer.client"),
                               signalExecutor: (any TaskExecutor)? = nil) async throws -> SecretService {
        let router = SignalRouter()
        let pump = router.start(pumping: connection.messages, on: signalExecutor)
        do {
            let session = try await ClientSession.open(
                with: ServiceProxy(connection: connection, destination: destination), preferring: algorithm,
                allowPlainFallback: allowPlainFallback)
            logger.debug("opened a Secret Service session", metadata: ["secret.algorithm": "\(session.algorithm)"])
            return SecretService(connection: connection, destination: destination, session: session, router: router,
                                 pump: pump, logger: logger)
        } catch {
            pump.cancel()
            throw error
        }
    }

    /// Closes the transfer session (best effort) and the connection.
    public func close() async {
        try? await SessionProxy(connection: connection, path: session.path, destination: destination).close()
        await connection.close()
        pump.cancel()
    }

    // MARK: - Raw access

    /// The service object's proxy.
    public var service: ServiceProxy { ServiceProxy(connection: connection, destination: destination) }

    /// A proxy for the collection (or alias) at `path`.
    public func collectionProxy(_ path: ObjectPath) -> CollectionProxy {
        CollectionProxy(connection: connection, path: path, destination: destination)
    }

    /// A proxy for the item at `path`.
    public func itemProxy(_ path: ObjectPath) -> ItemProxy {
        ItemProxy(connection: connection, path: path, destination: destination)
    }

    /// Opens another transfer session on this connection (the instance keeps using ``session``).
    /// - Parameters:
    ///   - algorithm: the algorithm to try first.
    ///   - allowPlainFallback: whether to accept `plain` when DH is refused with `NotSupported`.
    /// - Returns: the new session; close it with ``SessionProxy/close()``.
    /// - Throws: as ``ClientSession/open(with:preferring:allowPlainFallback:)``.
    public func openSession(preferring algorithm: SessionAlgorithm, allowPlainFallback: Bool = false) async throws
        -> ClientSession {
        try await ClientSession.open(with: service, preferring: algorithm, allowPlainFallback: allowPlainFallback)
    }

    /// Subscribes to signals: the bus match rules are in place when this returns, so act afterwards and then
    /// iterate the subscription. Call ``SignalSubscription/cancel()`` when done.
    /// - Parameter filters: the signals wanted (any filter matching is enough).
    /// - Returns: the live subscription.
    /// - Throws: ``SecretServiceClientError/transport(_:)`` when the match rules cannot be added.
    public func subscribe(to filters: [SignalFilter]) async throws -> SignalSubscription {
        try await SignalSubscription.open(filters, router: router, connection: connection)
    }
}
