// SPDX-License-Identifier: Apache-2.0
// The applications the user always allowed to use every item of a collection.

public import SecretServiceProtocol

extension SecretStore {
    /// The applications always allowed to use every item of the collection, present and future (application
    /// identities as the daemon writes them). Sealed like item metadata, so only known while unlocked.
    /// - Throws: `noSuchObject`, `isLocked`, `failed` when the sealed list cannot be opened.
    public func collectionAllowedApplications(_ id: String) throws(SecretServiceError) -> [String] {
        let state = try unlockedState(of: id)
        guard let blob = state.sealedAccess else { return [] }
        if let opened = state.openedAccess { return opened }
        guard let vault = state.vault else { throw .isLocked("the collection is locked") }
        do {
            let opened = try vault.openCollectionAccess(blob)
            state.openedAccess = opened
            return opened
        } catch {
            throw .failed("the collection's access list could not be decrypted: \(error)")
        }
    }

    /// Replaces the applications always allowed to use every item of the collection. One record (type 6) in the
    /// file; the collection's `Modified` stays, as for an item's decisions.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded` past ``maximumAllowedApplications``, `invalidArgs`, `failed`.
    public func setCollectionAllowedApplications(_ applications: [String], collection id: String)
        async throws(SecretServiceError) {
        await waitForCompaction(of: id)
        guard applications.count <= Self.maximumAllowedApplications else {
            throw .limitsExceeded("at most \(Self.maximumAllowedApplications) applications may be allowed at once")
        }
        guard applications.allSatisfy({ $0.utf8.count <= Self.maximumIdentityBytes }) else {
            throw .invalidArgs("an application identity is longer than \(Self.maximumIdentityBytes) bytes")
        }
        let state = try unlockedState(of: id)
        guard try collectionAllowedApplications(id) != applications, let vault = state.vault else { return }
        let blob: SealedBlob
        do {
            blob = try vault.sealCollectionAccess(applications)
        } catch {
            throw .failed("the collection's access list could not be sealed: \(error)")
        }
        let pending = try persist(.collectionAccess(blob), in: state)
        state.sealedAccess = blob
        compactIfWorthwhile(id)
        try await settle(pending)
    }

    /// How many applications one collection or item may list as always allowed: a bound on what one record holds.
    public static let maximumAllowedApplications = 256
    /// The longest identity recorded: two paths (an interpreter and its script) and their file numbers fit.
    public static let maximumIdentityBytes = 16 * 1024
}
