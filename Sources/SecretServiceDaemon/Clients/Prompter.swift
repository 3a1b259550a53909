// SPDX-License-Identifier: Apache-2.0
// How the daemon asks the user to approve an operation.

public import DBusWire

/// What a prompt asks the user.
public struct PromptRequest: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Unlock the named collection.
        case unlock(collectionLabel: String)
        /// Let an application use an item another application created (docs/ACCESS-CONTROL.md).
        case access(AccessRequest)
        /// Always allow an application ahead of time, as one program (`coffer access grant`) asks.
        case grant(GrantRequest)
    }

    public var kind: Kind
    /// The window the client wants the prompt attached to (`Prompt(window-id)`), possibly empty.
    public var windowID: String
    /// The unique bus name of the client that asked.
    public var caller: BusName

    public init(kind: Kind, windowID: String, caller: BusName) {
        self.kind = kind
        self.windowID = windowID
        self.caller = caller
    }
}

/// Answers prompts. Implementations must return promptly once their task is cancelled (a dismissed prompt or a
/// client that left the bus).
public protocol Prompter: Sendable {
    /// Asks the user to approve `request`; `false` means the user dismissed it.
    func approve(_ request: PromptRequest) async -> Bool

    /// Why this prompter cannot reach the user at all right now (no display and no terminal, no program to ask
    /// with); `nil` when it can try. Asked before a prompt runs, so the client gets the reason, worded for the
    /// prompt's question (``PromptQuestion/reason(_:)``), as the error of its `Prompt()` call rather than a bare
    /// dismissal.
    func unavailability() async -> PromptUnavailability?

    /// Asks whether an application may use an item (`request.kind` is ``PromptRequest/Kind/access(_:)``): allow
    /// once, always allow, or deny.
    func consent(_ request: PromptRequest) async -> AccessAnswer
}

extension Prompter {
    /// A prompter that needs nobody (``FixedPrompter``) is always available.
    public func unavailability() async -> PromptUnavailability? { nil }

    /// A prompter that can only say yes or no offers no "always": yes allows once.
    public func consent(_ request: PromptRequest) async -> AccessAnswer {
        await approve(request) ? .allowOnce : .deny
    }
}

/// Which application wants which item: what an access prompt shows, the application first.
public struct AccessRequest: Sendable, Hashable {
    /// The application as a person reads it (``AppIdentity/displayName``).
    public var application: String
    public var processID: Int32
    /// The command line the process shows (it may have changed it: shown for recognition, never trusted).
    public var commandLine: String
    public var itemLabel: String
    public var collectionLabel: String
    /// Whether the item has no recorded creator (stored before access control, or imported).
    public var unowned: Bool
    /// The item's `Keychain` access group: "always allow" then covers every item of that group in the collection.
    public var accessGroup: String?
    /// Whether "always allow" is kept, so the user chooses its reach (this item or the whole keyring); `false` for
    /// a question about one action (deleting a keyring), after which nothing is left to allow.
    public var keepsAnswer: Bool

    public init(application: String, processID: Int32, commandLine: String, itemLabel: String,
                collectionLabel: String, unowned: Bool, accessGroup: String? = nil, keepsAnswer: Bool = true) {
        self.application = application
        self.processID = processID
        self.commandLine = commandLine
        self.itemLabel = itemLabel
        self.collectionLabel = collectionLabel
        self.unowned = unowned
        self.accessGroup = accessGroup
        self.keepsAnswer = keepsAnswer
    }
}

/// Which program asks to always allow which application what, ahead of time: what a grant prompt shows.
public struct GrantRequest: Sendable, Hashable {
    /// The application that would be allowed, as its identity is written (``AppIdentity/description``): the user
    /// must see exactly which program, file numbers included.
    public var grantee: String
    /// The application that asks (``AppIdentity/displayName``), its process and command line.
    public var requester: String
    public var processID: Int32
    public var commandLine: String
    /// The labels of the items, empty for the whole collection.
    public var itemLabels: [String]
    public var collectionLabel: String

    public init(grantee: String, requester: String, processID: Int32, commandLine: String, itemLabels: [String],
                collectionLabel: String) {
        self.grantee = grantee
        self.requester = requester
        self.processID = processID
        self.commandLine = commandLine
        self.itemLabels = itemLabels
        self.collectionLabel = collectionLabel
    }
}

/// A prompter that answers every prompt the same way without asking anyone: for collections that have no
/// password to ask for, headless use, and tests.
///
/// It deliberately does not conform to ``PasswordPrompter``: it has no password to give, so password-protected
/// collections need a prompter that can ask for one (``PinentryPrompter``).
public struct FixedPrompter: Prompter {
    public let answer: Bool
    public init(answer: Bool) { self.answer = answer }
    public func approve(_ request: PromptRequest) async -> Bool { answer }

    /// Approves every prompt.
    public static let autoAccept = FixedPrompter(answer: true)
    /// Dismisses every prompt.
    public static let autoDismiss = FixedPrompter(answer: false)
}
