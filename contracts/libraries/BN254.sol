// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title BN254
/// @notice BLS signatures on the BN254 (alt_bn128) curve through the EVM precompiles: ecAdd (0x06),
///         ecMul (0x07), ecPairing (0x08) and modexp (0x05, for the square root of hash-to-G1).
/// @dev Signatures and hashed messages live in G1, public keys in G2 (see SPECIFICATION.md 3.1).
///      G1 points are `[x, y]`, G2 points `[x.c1, x.c0, y.c1, y.c0]` (the pairing precompile's
///      order); all zeros is the point at infinity. The precompiles reject points off the curve and,
///      for G2, outside the prime-order subgroup, so every check below fails closed on bad input.
library BN254 {
    /// @notice Base field modulus p.
    uint256 internal constant P = 21888242871839275222246405745257275088696311157297823662689037894645226208583;
    /// @notice Order n of G1 and G2.
    uint256 internal constant N = 21888242871839275222246405745257275088548364400416034343698204186575808495617;

    /// @notice Domain tag of the hash-to-G1 map (every message hashed here is itself domain-tagged).
    bytes32 internal constant HASH_DST = keccak256("decentrl.bls.bn254.g1.keccak-tai.v1");

    // 2^256 mod p: folds a 512-bit hash into Fp with a 2^-258 statistical distance from uniform.
    uint256 private constant R256 = 6350874878119819312338956282401532409788428879151445726012394534686998597021;
    // (p + 1) / 4: p = 3 mod 4, so a^((p+1)/4) is a square root of a whenever one exists.
    uint256 private constant SQRT_EXP = 5472060717959818805561601436314318772174077789324455915672259473661306552146;

    /// @notice Gas handed to the pairing precompile for two pairs (EIP-1108: 45,000 + 2 × 34,000 =
    ///         113,000). A precompile that rejects its input consumes all the gas it was given, so an
    ///         unbounded call on a bad G2 point would burn the caller's whole transaction.
    uint256 internal constant PAIRING2_GAS = 120_000;

    uint256 private constant G2_X1 = 11559732032986387107991004021392285783925812861821192530917403151452391805634;
    uint256 private constant G2_X0 = 10857046999023057135944570762232829481370756359578518086990519993285655852781;
    uint256 private constant G2_Y1 = 4082367875863433681332203403145435568316851327593401208105741076214120093531;
    uint256 private constant G2_Y0 = 8495653923123431417604973247489272438418190587263600148770280649306958101930;

    /// @notice A precompile call failed although its inputs had been checked (e.g. out of gas).
    error PrecompileFailed(uint256 precompile);
    /// @notice No counter below 256 mapped the message to the curve (probability 2^-256).
    error HashToCurveFailed(bytes32 message);

    /// @notice Sum of two G1 points (ecAdd). Reverts on points off the curve.
    function add(uint256[2] memory a, uint256[2] memory b) internal view returns (uint256[2] memory r) {
        bool ok;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, mload(a))
            mstore(add(m, 0x20), mload(add(a, 0x20)))
            mstore(add(m, 0x40), mload(b))
            mstore(add(m, 0x60), mload(add(b, 0x20)))
            ok := staticcall(gas(), 0x06, m, 0x80, r, 0x40)
        }
        if (!ok) revert PrecompileFailed(0x06);
    }

    /// @notice The negation −a of a G1 point: (x, p − y), infinity stays infinity. Subtracting a key
    ///         from a sum is adding its negation.
    function negate(uint256[2] memory a) internal pure returns (uint256[2] memory) {
        // y < p for every point the precompiles accepted, and y == 0 only at infinity (x³ + 3 has no
        // root in Fp), so p - y is canonical.
        if (a[1] == 0) return a;
        return [a[0], P - a[1]];
    }

    /// @notice Scalar multiple of a G1 point (ecMul). Reverts on a point off the curve.
    function mul(uint256[2] memory a, uint256 s) internal view returns (uint256[2] memory r) {
        bool ok;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, mload(a))
            mstore(add(m, 0x20), mload(add(a, 0x20)))
            mstore(add(m, 0x40), s)
            ok := staticcall(gas(), 0x07, m, 0x60, r, 0x40)
        }
        if (!ok) revert PrecompileFailed(0x07);
    }

    /// @notice Whether `a` is a G1 point (on y² = x³ + 3 with canonical coordinates, or infinity).
    ///         G1 has cofactor 1, so on the curve means in the group.
    function isOnCurveG1(uint256[2] memory a) internal pure returns (bool) {
        uint256 x = a[0];
        uint256 y = a[1];
        if (x >= P || y >= P) return false;
        if (x == 0 && y == 0) return true;
        return mulmod(y, y, P) == addmod(mulmod(x, mulmod(x, x, P), P), 3, P);
    }

    /// @notice Checks e(a1, b1) · e(a2, b2) == 1 with the pairing precompile.
    /// @return callOk False when the precompile rejected an input (a point off its curve, a G2
    ///         point outside the subgroup, a coordinate ≥ p).
    /// @return holds Whether the product is the identity (false when `callOk` is false).
    function pairing2(uint256[2] memory a1, uint256[4] memory b1, uint256[2] memory a2, uint256[4] memory b2)
        internal
        view
        returns (bool callOk, bool holds)
    {
        uint256[12] memory input = [a1[0], a1[1], b1[0], b1[1], b1[2], b1[3], a2[0], a2[1], b2[0], b2[1], b2[2], b2[3]];
        uint256[1] memory out;
        assembly ("memory-safe") {
            callOk := staticcall(PAIRING2_GAS, 0x08, input, 0x180, out, 0x20)
        }
        holds = callOk && out[0] == 1;
    }

    /// @notice The generator of G1.
    function g1() internal pure returns (uint256[2] memory) {
        return [uint256(1), 2];
    }

    /// @notice The negated generator of G2 (−g2), as the pairing checks below use it.
    function negG2() internal pure returns (uint256[4] memory) {
        return [G2_X1, G2_X0, P - G2_Y1, P - G2_Y0];
    }

    /// @notice Maps a 32-byte message to G1 by try-and-increment: for counter c = 0, 1, ...,
    ///         x = (keccak(HASH_DST ‖ m ‖ c ‖ 0) · 2^256 + keccak(HASH_DST ‖ m ‖ c ‖ 1)) mod p; the
    ///         first x with x³ + 3 a square gives the point, y's parity taken from the first hash.
    /// @dev Each try succeeds with probability ~1/2 (two modexp-priced tries expected). The loop
    ///      length depends on the message, which is public: nothing secret is timed. The output is
    ///      not a uniform point (x values are hit with the density of the 512-bit reduction, one y
    ///      per x by a hash bit), which is the classic MapToGroup of Boneh–Lynn–Shacham, secure in
    ///      the random-oracle model; decentrl's Python (workers/crypto/bls.py) computes the same map.
    function hashToG1(bytes32 message) internal view returns (uint256[2] memory) {
        for (uint256 counter = 0; counter < 256; ++counter) {
            uint256 h0 = uint256(keccak256(abi.encodePacked(HASH_DST, message, uint8(counter), uint8(0))));
            uint256 h1 = uint256(keccak256(abi.encodePacked(HASH_DST, message, uint8(counter), uint8(1))));
            uint256 x = addmod(mulmod(h0, R256, P), h1 % P, P);
            uint256 rhs = addmod(mulmod(x, mulmod(x, x, P), P), 3, P);
            uint256 y = _sqrtCandidate(rhs);
            if (mulmod(y, y, P) != rhs) continue;
            // x³ + 3 = 0 has no root in Fp (G1 has no point of order 2), so y != 0 and p - y < p.
            if ((y & 1) != (h0 & 1)) y = P - y;
            return [x, y];
        }
        revert HashToCurveFailed(message);
    }

    /// @notice Verifies a BLS signature `sigma` (G1) on `message` by the key whose G1 copy is `pk1`
    ///         and G2 form is `pk2` — one key or an aggregate of several — and checks that `pk1` and
    ///         `pk2` share their discrete logarithm. Both pairing equations
    ///         e(sigma, g2) = e(H(m), pk2) and e(pk1, g2) = e(g1, pk2) are checked at once with a
    ///         random linear combination:
    ///         e(sigma + γ·pk1, −g2) · e(H(m) + γ·g1, pk2) = 1, γ = keccak(sigma, pk1, pk2, H(m)) mod n.
    /// @dev γ is fixed only after every input is, so a pair of equations that does not hold passes
    ///      with probability 1/n per hash evaluation (the construction of EigenLayer's
    ///      BLSSignatureChecker). Returns false, never reverts, on a malformed sigma or pk2.
    function verify(uint256[2] memory sigma, uint256[2] memory pk1, uint256[4] memory pk2, bytes32 message)
        internal
        view
        returns (bool)
    {
        if (!isOnCurveG1(sigma) || !isOnCurveG1(pk1)) return false;
        uint256[2] memory hm = hashToG1(message);
        uint256 gamma = uint256(keccak256(abi.encode(sigma, pk1, pk2, hm))) % N;
        (bool callOk, bool holds) = pairing2(add(sigma, mul(pk1, gamma)), negG2(), add(hm, mul(g1(), gamma)), pk2);
        return callOk && holds;
    }

    function _sqrtCandidate(uint256 a) private view returns (uint256 r) {
        bool ok;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, 0x20)
            mstore(add(m, 0x20), 0x20)
            mstore(add(m, 0x40), 0x20)
            mstore(add(m, 0x60), a)
            mstore(add(m, 0x80), SQRT_EXP)
            mstore(add(m, 0xa0), P)
            ok := staticcall(gas(), 0x05, m, 0xc0, m, 0x20)
            r := mload(m)
        }
        if (!ok) revert PrecompileFailed(0x05);
    }
}
