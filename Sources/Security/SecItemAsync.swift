// SPDX-License-Identifier: Apache-2.0
// The SecItem functions as async calls for CofferKeychain's async API: the same dictionaries, checks and core as
// SecItemAdd/CopyMatching/Update/Delete, awaited instead of blocking a thread.

import Foundation

/// Awaitable forms of the four SecItem functions (not Apple API, so not public: only this package's modules use
/// them). They read the dictionaries and build the result objects in the calling task; the work between runs on the
/// shared connection's loop, exactly as for the blocking functions, and no thread waits for it.
package enum SecItemAsync {
    /// `SecItemAdd`; `wantsResult` stands for a non-nil result pointer.
    package static func add(_ attributes: CFDictionary, wantsResult: Bool = false) async
        -> (status: OSStatus, result: CFTypeRef?) {
        switch SecItemCall.add(attributes, resultRequested: wantsResult) {
        case .failure(let failure): return (failure.status, nil)
        case .success(let call): return finish(await call.run())
        }
    }

    /// `SecItemCopyMatching`; `wantsResult` stands for a non-nil result pointer.
    package static func copyMatching(_ query: CFDictionary, wantsResult: Bool = true) async
        -> (status: OSStatus, result: CFTypeRef?) {
        switch SecItemCall.copyMatching(query, resultRequested: wantsResult) {
        case .failure(let failure): return (failure.status, nil)
        case .success(let call): return finish(await call.run())
        }
    }

    /// `SecItemUpdate`.
    package static func update(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) async -> OSStatus {
        switch SecItemCall.update(query, attributesToUpdate) {
        case .failure(let failure): return failure.status
        case .success(let call): return finish(await call.run()).status
        }
    }

    /// `SecItemDelete`.
    package static func delete(_ query: CFDictionary) async -> OSStatus {
        switch SecItemCall.delete(query) {
        case .failure(let failure): return failure.status
        case .success(let call): return finish(await call.run()).status
        }
    }

    private static func finish(_ outcome: Result<ItemResult?, KeychainFailure>)
        -> (status: OSStatus, result: CFTypeRef?) {
        var object: CFTypeRef?
        let status = deliver(outcome, to: &object)
        return (status, object)
    }
}
