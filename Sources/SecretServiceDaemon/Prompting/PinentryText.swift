// SPDX-License-Identifier: Apache-2.0
// The words a pinentry dialog shows for each kind of prompt.

import DBusWire

/// The texts of one pinentry dialog.
///
/// Every description opens with what the user must be able to trust: which client asks, and for which keyring.
/// Only after that comes the collection label, which any client may choose, shown through ``PromptLabel`` so it
/// stays on its line and short; what follows it is instructions only. Assuan cuts a line at 1,000 bytes, so
/// whatever is cut is never the requester.
struct PinentryText {
    static let passwordPrompt = "Password:"
    static let confirmPrompt = "Confirm:"
    static let mismatch = "Passwords do not match"
    static let cancel = "Cancel"

    /// The window title (`SETTITLE`).
    var title: String
    /// The explanation above the entry (`SETDESC`).
    var description: String
    /// The OK button (`SETOK`).
    var ok: String
    /// The explanation when we ask for the confirmation ourselves.
    var confirmDescription = ""

    /// An approval.
    init(_ request: PromptRequest) {
        switch request.kind {
        case .unlock(let label):
            title = "Unlock Keyring"
            description = Self.requester(request.caller) + " wants access to \(Self.keyring(label))."
            ok = "Unlock"
        case .access(let access):
            title = "Allow Access to a Secret"
            let item = PromptLabel.displayed(access.itemLabel)
            description = "The application \(PromptLabel.displayedPath(access.application))"
                + " (process \(access.processID): \(PromptLabel.displayedPath(access.commandLine)))"
                + " wants to use the secret “\(item)” in \(Self.keyring(access.collectionLabel))"
                + (access.unowned ? "." : ", which another application stored.")
                + (access.unowned ? "\n\nNo application is recorded as its creator: it was stored before access"
                    + " control, or imported." : "")
                + (access.accessGroup.map {
                    "\n\n“\(Self.alwaysAllow)” allows it every secret of the access group"
                        + " “\(PromptLabel.displayed($0))” in this keyring."
                } ?? "")
            ok = Self.allowOnce
        case .grant(let grant):
            title = "Allow an Application Ahead of Time"
            let what: String
            switch grant.itemLabels.count {
            case 0: what = "every secret, present and future, of \(Self.keyring(grant.collectionLabel))"
            case 1:
                what = "the secret “\(PromptLabel.displayed(grant.itemLabels[0]))” in "
                    + Self.keyring(grant.collectionLabel)
            default: what = "\(grant.itemLabels.count) secrets in \(Self.keyring(grant.collectionLabel))"
            }
            description = "The application \(PromptLabel.displayedPath(grant.requester))"
                + " (process \(grant.processID): \(PromptLabel.displayedPath(grant.commandLine)))"
                + " asks to always allow \(PromptLabel.displayedPath(grant.grantee)) to use \(what)."
                + "\n\nAllow it only if you asked for this yourself."
            ok = Self.alwaysAllow
        }
    }

    static let allowOnce = "Allow once"
    static let alwaysAllow = "Always allow"
    static let deny = "Deny"
    static let onlyThisSecret = "Only this secret"
    static let onlyThisGroup = "Only this group"
    static let wholeKeyring = "Whole keyring"

    /// The second question after "Always allow": how far it reaches. Asked in the same dialog only after that
    /// answer (the rare one), so "Allow once" and "Deny" stay one click; OK is the narrower answer so that a hasty
    /// Enter grants the least.
    init(scopeOf access: AccessRequest) {
        title = "Always Allow"
        let narrow = access.accessGroup.map { "every secret of the access group “\(PromptLabel.displayed($0))”" }
            ?? "the secret “\(PromptLabel.displayed(access.itemLabel))”"
        description = "Always allow the application \(PromptLabel.displayedPath(access.application))"
            + " to use \(narrow) only, or every secret, present and future, of \(Self.keyring(access.collectionLabel))?"
            + "\n\n“\(Self.deny)” allows nothing."
        ok = access.accessGroup == nil ? Self.onlyThisSecret : Self.onlyThisGroup
    }

    /// The password of an existing collection.
    init(unlocking request: PasswordRequest) {
        title = "Unlock Keyring"
        description = Self.requester(request.caller) + " wants access to \(Self.keyring(request.collectionLabel))."
            + "\n\nEnter its password to unlock it."
        ok = "Unlock"
    }

    /// The password of a new collection.
    init(creating request: PasswordRequest) {
        let label = PromptLabel.displayed(request.collectionLabel)
        title = "New Keyring Password"
        description = Self.requester(request.caller)
            + (label.isEmpty ? " wants to create a new keyring." : " wants to create a new keyring called “\(label)”.")
            + "\n\nChoose the password you want to use for it."
        ok = "Create"
        confirmDescription = "Enter the password for \(label.isEmpty ? "the new keyring" : "“\(label)”") again."
    }

    /// The current password of a collection whose password is being changed.
    init(changingFrom request: PasswordRequest) {
        title = "Change Keyring Password"
        description = Self.requester(request.caller)
            + " wants to change the password of \(Self.keyring(request.collectionLabel))."
            + "\n\nEnter its current password."
        ok = "Continue"
    }

    /// The new password of a collection whose password is being changed.
    init(changingTo request: PasswordRequest) {
        let label = PromptLabel.displayed(request.collectionLabel)
        title = "Change Keyring Password"
        description = Self.requester(request.caller)
            + " wants to change the password of \(Self.keyring(request.collectionLabel))."
            + "\n\nChoose the new password."
        ok = "Change"
        confirmDescription = "Enter the new password for \(label.isEmpty ? "the keyring" : "“\(label)”") again."
    }

    private static func keyring(_ label: String) -> String {
        let shown = PromptLabel.displayed(label)
        return shown.isEmpty ? "an unnamed keyring" : "the keyring “\(shown)”"
    }

    /// Which client asked: its unique bus name is all we know for certain, and the bus daemon set it.
    private static func requester(_ caller: BusName) -> String {
        "The D-Bus client \(caller.rawValue)"
    }
}
