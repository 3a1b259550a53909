// SPDX-License-Identifier: Apache-2.0
// The independent implementation SecKey interoperability is checked against: python3-cryptography (Debian).

import Foundation

/// Runs one operation of ``script`` in python3 with hex-encoded fields in and out (JSON over stdin/stdout).
enum PythonCryptography {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ operation: String, _ fields: [String: Data] = [:], text: [String: String] = [:]) throws
        -> [String: Data] {
        var input: [String: String] = text
        for (key, value) in fields { input[key] = value.map { String(format: "%02x", $0) }.joined() }
        input["op"] = operation
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let object = try JSONSerialization.jsonObject(with: output) as? [String: String]
        else { throw Failure(description: "python3 \(operation): " + String(decoding: errors, as: UTF8.self)) }
        var result: [String: Data] = [:]
        for (key, value) in object {
            var bytes = Data()
            var index = value.startIndex
            while index < value.endIndex {
                let next = value.index(index, offsetBy: 2)
                bytes.append(UInt8(value[index..<next], radix: 16)!)
                index = next
            }
            result[key] = bytes
        }
        return result
    }

    /// Apple's formats written out from the published descriptions: EC keys as X9.63 points, RSA as PKCS#1,
    /// ECDSA signatures as X9.62 DER, PSS with MGF1 of the same hash and a digest-long salt, ECIES as ephemeral
    /// point ‖ AES-GCM ciphertext ‖ tag with the X9.63 KDF over the ephemeral point.
    static let script = #"""
import json, sys, os
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa, padding, utils
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

req = json.load(sys.stdin)
b = lambda k: bytes.fromhex(req[k])
H = {"sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}
CURVES = {32: ec.SECP256R1(), 48: ec.SECP384R1(), 66: ec.SECP521R1()}
out = {}

def curve_of(point): return CURVES[(len(point) - 1) // 2]
def ec_pub(point): return ec.EllipticCurvePublicKey.from_encoded_point(curve_of(point), point)
def ec_priv(data):
    n = (len(data) - 1) // 3
    return ec.derive_private_key(int.from_bytes(data[1 + 2 * n:], "big"), CURVES[n])
def point(key): return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
def rsa_pub(der): return serialization.load_der_public_key(der)
def rsa_priv(der): return serialization.load_der_private_key(der, None)
def pad(kind, h):
    if kind == "pss": return padding.PSS(mgf=padding.MGF1(h()), salt_length=h().digest_size)
    return padding.PKCS1v15()
def enc_pad(kind):
    if kind == "pkcs1": return padding.PKCS1v15()
    h = H[kind]
    return padding.OAEP(mgf=padding.MGF1(h()), algorithm=h(), label=None)
def ecies_parts(shared, eph, h, variable):
    size = 16 if len(eph) <= 65 else 32
    material = X963KDF(algorithm=H[h](), length=size + (16 if variable else 0), sharedinfo=eph).derive(shared)
    return material[:size], (material[size:] if variable else bytes(16))

op = req["op"]
h = req.get("hash", "sha256")
if op == "ec-verify":
    try:
        ec_pub(b("key")).verify(b("sig"), b("msg"), ec.ECDSA(H[h]()))
        out["ok"] = "01"
    except Exception:
        out["ok"] = "00"
elif op == "rsa-verify":
    try:
        rsa_pub(b("key")).verify(b("sig"), b("msg"), pad(req["padding"], H[h]), H[h]())
        out["ok"] = "01"
    except Exception:
        out["ok"] = "00"
elif op == "digest":
    d = hashes.Hash(H[h]())
    d.update(b("msg"))
    out["digest"] = d.finalize().hex()
elif op == "ec-sign":
    key = ec.generate_private_key(CURVES[int(req["size"])])
    out["key"] = point(key).hex()
    out["sig"] = key.sign(b("msg"), ec.ECDSA(H[h]())).hex()
elif op == "rsa-sign":
    key = rsa.generate_private_key(public_exponent=65537, key_size=int(req["bits"]))
    out["key"] = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1).hex()
    out["sig"] = key.sign(b("msg"), pad(req["padding"], H[h]), H[h]()).hex()
elif op == "rsa-encrypt":
    out["ct"] = rsa_pub(b("key")).encrypt(b("msg"), enc_pad(req["padding"])).hex()
elif op == "rsa-decrypt":
    out["msg"] = rsa_priv(b("key")).decrypt(b("ct"), enc_pad(req["padding"])).hex()
elif op == "ecies-encrypt":
    recipient = ec_pub(b("key"))
    eph = ec.generate_private_key(recipient.curve)
    eph_point = point(eph)
    key, iv = ecies_parts(eph.exchange(ec.ECDH(), recipient), eph_point, h, req["variable"] == "1")
    out["ct"] = (eph_point + AESGCM(key).encrypt(iv, b("msg"), None)).hex()
elif op == "ecies-decrypt":
    key = ec_priv(b("key"))
    data = b("ct")
    n = len(point(key))
    eph_point = data[:n]
    sym, iv = ecies_parts(key.exchange(ec.ECDH(), ec_pub(eph_point)), eph_point, h, req["variable"] == "1")
    out["msg"] = AESGCM(sym).decrypt(iv, data[n:], None).hex()
elif op == "ecdh":
    shared = ec_priv(b("key")).exchange(ec.ECDH(), ec_pub(b("peer")))
    out["raw"] = shared.hex()
    out["kdf"] = X963KDF(algorithm=H[h](), length=int(req["size"]), sharedinfo=b("info")).derive(shared).hex()
json.dump(out, sys.stdout)
"""#
}
