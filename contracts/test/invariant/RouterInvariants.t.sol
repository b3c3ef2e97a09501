// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RouterFixture} from "./RouterFixture.sol";

/// @notice Random sequences of every router entry point (see RouterHandler) against the books the handler
///         keeps. The handler makes each router call inside try/catch and books it as succeeded, reverted
///         as predicted, skipped by a bound, or unexpected, so nothing hides behind the profile's
///         fail_on_revert = false; these invariants turn fail-on-revert on for themselves, since a handler
///         call that reverts would be a bug in the handler (a check it could not make).
contract RouterInvariantsTest is RouterFixture {
    /// One campaign checks every property after every call (separate invariant functions would each replay
    /// the same seeded sequences, tripling the time for no new states):
    /// - balance ≥ reserved + held always, == reserved + held plus the direct transfers not yet recovered;
    ///   reserved(token) == Σ order reserves == Σ ghost reserves; held(token) == Σ order authorizations == Σ
    ///   ghost authorizations (_checkBalances);
    /// - no order paid twice, no cancelled order paid, no refund past the amount or to anyone but the
    ///   payer, no release before releaseAfter, recoverExcess never took a reserve or held funds; no
    ///   capture above the authorized amount or at/after its capture deadline, and no capture, void or
    ///   reclaim paid anyone but the payer and the parties the service signed (_checkOrders);
    /// - refund ids, signers, pause and hold as modelled, and no call had an outcome (success or exact
    ///   revert data) other than the one the model predicted (_checkModel).
    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_RouterKeepsItsBooks() public view {
        _checkBalances();
        _checkOrders();
        _checkModel();
    }

    /// After each run: the counters add up, and a full-depth run really changed something on chain (a
    /// replayed or shrunk failure sequence may be a few calls long, so only full runs are judged).
    function afterInvariant() public view {
        (uint256 calls, uint256 routerSuccesses) = _checkCounters();
        if (calls >= 32) vm.assertGt(routerSuccesses, 0, "no router call succeeded in this run");
    }
}
