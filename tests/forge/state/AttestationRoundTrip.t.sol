// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {StateBase} from "./StateBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";

/// @notice A vote reads back whichever way it was recorded: StateView.attestationOf asks the core,
///         whose rule (Votes) finds a slot's own attestation or the one aggregate ballot covering it.
contract AttestationRoundTripTest is StateBase {
    function testFuzz_soloAttestation_roundTrips(uint256 taskId, uint256 round, uint8 slot, uint64 bitmap, uint64 plant)
        public
    {
        harness.putAttestation(taskId, round, slot, ITaskRegistry.Attestation(true, bitmap, plant));
        ITaskRegistry.Attestation memory a = stateView.attestationOf(taskId, round, slot);
        assertTrue(a.voted, "voted");
        assertEq(a.acceptBitmap, bitmap, "bitmap");
        assertEq(a.plantBitmap, plant, "plant bitmap");
        assertTrue(!stateView.attestationOf(taskId, round ^ 1, slot).voted, "other rounds apart");
    }

    /// @dev Up to four ballots over disjoint signer sets cut from `masks`; each signer reads its
    ///      ballot's bitmap, a slot outside every ballot reads as not voted.
    function testFuzz_aggregateBallots_roundTrip(uint256 taskId, uint256 round, uint64[4] memory masks, uint64[4] memory bitmaps)
        public
    {
        uint64 taken;
        uint64[4] memory signers;
        for (uint256 i = 0; i < 4; ++i) {
            signers[i] = masks[i] & ~taken;
            if (signers[i] == 0) continue;
            taken |= signers[i];
            harness.putBallot(taskId, round, signers[i], bitmaps[i], ~bitmaps[i] >> i);
        }
        for (uint256 v = 0; v < 64; ++v) {
            ITaskRegistry.Attestation memory a = stateView.attestationOf(taskId, round, v);
            bool expected = (taken >> v) & 1 == 1;
            assertTrue(a.voted == expected, "voted iff in a ballot");
            if (!expected) {
                assertEq(a.acceptBitmap, 0, "no bitmap");
                continue;
            }
            for (uint256 i = 0; i < 4; ++i) {
                if ((signers[i] >> v) & 1 == 1) {
                    assertEq(a.acceptBitmap, bitmaps[i], "the covering ballot's bitmap");
                    assertEq(a.plantBitmap, ~bitmaps[i] >> i, "the covering ballot's plant bitmap");
                }
            }
        }
    }

    function test_soloAttestationTakesPrecedenceOverNothing() public {
        assertTrue(!stateView.attestationOf(1, 0, 5).voted, "not voted");
        harness.putBallot(1, 0, uint64(1) << 4, 0x3);
        harness.putAttestation(1, 0, 5, ITaskRegistry.Attestation(true, 0x1, 0x2));
        assertEq(stateView.attestationOf(1, 0, 4).acceptBitmap, 0x3, "aggregate vote");
        assertEq(stateView.attestationOf(1, 0, 5).acceptBitmap, 0x1, "own vote");
        assertEq(stateView.attestationOf(1, 0, 5).plantBitmap, 0x2, "own plant answers");
        assertEq(stateView.attestationOf(1, 0, 4).plantBitmap, 0, "the aggregate's: none");
        assertTrue(!stateView.attestationOf(1, 0, 6).voted, "neither");
    }
}
