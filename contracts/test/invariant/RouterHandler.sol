// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {HandlerBase} from "./HandlerBase.sol";
import {HandlerEscrow} from "./HandlerEscrow.sol";

/// @notice The handler the invariant runner drives: HandlerPayments' and HandlerEscrow's actions plus
///         settlements, time, pause, signer rotation, the reserve hold, tokens sent to the router directly and
///         their recovery.
contract RouterHandler is HandlerEscrow {
    address public immutable rescue;

    constructor(PaymentRouter router_, TestUSDC usdc_, address owner_, address operator_)
        HandlerBase(router_, usdc_, owner_, operator_)
    {
        rescue = makeAddr("rescue");
    }

    /// settleBatch over ids from the pool (duplicates allowed); sometimes a reused batch id, an empty batch
    /// or a stranger. Releases exactly the ids whose hold has passed and whose reserve is not spent.
    function settle(uint256 start, uint256 count, uint256 callerSeed) external {
        if (orderIds.length == 0) return _skip(Action.Settle);
        count = bound(count, 0, 8);
        bytes32[] memory ids = new bytes32[](count);
        for (uint256 i; i < count; ++i) {
            ids[i] = orderIds[(start % orderIds.length + i) % orderIds.length];
        }
        address caller = _operatorCaller(callerSeed);
        bytes32 batchId = (callerSeed >> 8) % 8 == 0 && _lastBatch != 0
            ? _lastBatch
            : keccak256(abi.encodePacked("stl_inv_", ++_nonce));
        bytes memory expected = _expectOperator(caller);
        if (expected.length == 0) {
            if (ghostPaused) {
                expected = abi.encodeWithSignature("EnforcedPause()");
            } else if (count == 0) {
                expected = abi.encodeWithSelector(IPaymentRouter.InvalidBatchSize.selector, 0, 100);
            } else if (_ghostBatchSettled[batchId]) {
                expected = abi.encodeWithSelector(IPaymentRouter.BatchAlreadySettled.selector, batchId);
            }
        }
        uint256 routerBefore = usdc.balanceOf(address(router));
        bool ok;
        bytes memory err;
        vm.prank(caller);
        try router.settleBatch(batchId, ids) {
            ok = true;
        } catch (bytes memory e) {
            err = e;
        }
        if (!_record(Action.Settle, ok, err, expected)) return;
        _ghostBatchSettled[batchId] = true;
        _lastBatch = batchId;
        uint256 released;
        for (uint256 i; i < count; ++i) {
            bytes32 id = ids[i];
            uint256 onChain = router.orders(id).reserve;
            if (block.timestamp < ghostReleaseAfter[id] || !ghostPaid[id]) {
                if (onChain != ghostOrderReserve[id]) ++ghostEarlyReleases; // moved inside its hold
                continue;
            }
            if (ghostOrderReserve[id] != 0) ++ghostReleases;
            released += ghostOrderReserve[id]; // 0 for a duplicate: the model released it above
            ghostOrderReserve[id] = 0;
            if (onChain != 0) ++ghostBadMoves; // hold passed, reserve left behind
        }
        ghostReserve = _sub(ghostReserve, released);
        if (routerBefore - usdc.balanceOf(address(router)) != released) ++ghostBadMoves;
    }

    /// 1 minute to 2 days ahead; one call in four to the last second before, or the first second of, the
    /// capture deadline of an authorization still held (if one is ahead).
    function warp(uint256 secondsAhead) external {
        uint256 to = block.timestamp + bound(secondsAhead, 1 minutes, 2 days);
        if (secondsAhead % 4 == 0 && orderIds.length != 0) {
            bytes32 id = orderIds[_pickAuthorized(secondsAhead >> 8)];
            uint256 edge = _signed[id].order.captureDeadline; // non-zero while authorized
            if (ghostAuthorized[id] != 0) edge -= (secondsAhead >> 2) % 2;
            if (ghostAuthorized[id] != 0 && edge > block.timestamp) to = edge;
        }
        vm.warp(to);
        _done(Action.Warp);
    }

    /// Pauses one call in three (so the router runs unpaused most of the time); pausing twice reverts.
    function pause(uint256 seed) external {
        if (seed % 3 != 0) return _skip(Action.Pause);
        address caller = _adminCaller(seed >> 2);
        bytes memory expected = _expectOwner(caller);
        if (expected.length == 0 && ghostPaused) expected = abi.encodeWithSignature("EnforcedPause()");
        (bool ok, bytes memory err) = _adminCall(caller, abi.encodeCall(router.pause, ()));
        if (_record(Action.Pause, ok, err, expected)) ghostPaused = true;
    }

    function unpause(uint256 seed) external {
        address caller = _adminCaller(seed);
        bytes memory expected = _expectOwner(caller);
        if (expected.length == 0 && !ghostPaused) expected = abi.encodeWithSignature("ExpectedPause()");
        (bool ok, bytes memory err) = _adminCall(caller, abi.encodeCall(router.unpause, ()));
        if (_record(Action.Unpause, ok, err, expected)) ghostPaused = false;
    }

    function addSigner(uint256 index, uint256 seed) external {
        address caller = _adminCaller(seed);
        (bool ok, bytes memory err) = _adminCall(caller, abi.encodeCall(router.addSigner, (vm.addr(signerKey(index)))));
        if (_record(Action.AddSigner, ok, err, _expectOwner(caller))) _ghostSigner[index % SIGNERS] = true;
    }

    /// Removes a signer one call in three (orders it signed then fail InvalidSigner); never the last one.
    function removeSigner(uint256 index, uint256 seed) external {
        uint256 left;
        for (uint256 i; i < SIGNERS; ++i) {
            if (_ghostSigner[i] && i != index % SIGNERS) ++left;
        }
        if (left == 0 || seed % 3 != 0) return _skip(Action.RemoveSigner); // rotations are rarer than uses
        address caller = _adminCaller(seed);
        (bool ok, bytes memory err) =
            _adminCall(caller, abi.encodeCall(router.removeSigner, (vm.addr(signerKey(index)))));
        if (_record(Action.RemoveSigner, ok, err, _expectOwner(caller))) _ghostSigner[index % SIGNERS] = false;
    }

    /// Hold for orders paid from now on: up to 3 days (so runs see releases), one call in eight beyond
    /// MAX_RESERVE_HOLD.
    function setHold(uint256 holdSeconds, uint256 seed) external {
        uint256 max = router.MAX_RESERVE_HOLD();
        holdSeconds = seed % 8 == 1 ? max + 1 + holdSeconds % 1 days : bound(holdSeconds, 0, 3 days);
        address caller = _adminCaller(seed);
        bytes memory expected = _expectOwner(caller);
        if (expected.length == 0 && holdSeconds > max) {
            expected = abi.encodeWithSelector(IPaymentRouter.HoldTooLong.selector, holdSeconds, max);
        }
        (bool ok, bytes memory err) = _adminCall(caller, abi.encodeCall(router.setReserveHold, (holdSeconds)));
        if (_record(Action.SetHold, ok, err, expected)) ghostHold = holdSeconds;
    }

    /// Someone sends USDC to the router itself (not a payment): it is excess, never a reserve.
    function directTransfer(uint256 amount, uint256 actorSeed) external {
        amount = bound(amount, 1, 1e9);
        vm.prank(actor(actorSeed % APPROVERS));
        usdc.transfer(address(router), amount);
        ghostExcess += amount;
        _done(Action.DirectTransfer);
    }

    function recoverExcess(uint256 seed) external {
        address caller = _adminCaller(seed);
        bytes memory expected = _expectOwner(caller);
        if (expected.length == 0 && ghostExcess == 0) {
            expected = abi.encodeWithSelector(IPaymentRouter.ZeroAmount.selector);
        }
        uint256 rescueBefore = usdc.balanceOf(rescue);
        uint256 reservedBefore = router.reserved(address(usdc));
        uint256 heldBefore = router.held(address(usdc));
        (bool ok, bytes memory err) = _adminCall(caller, abi.encodeCall(router.recoverExcess, (address(usdc), rescue)));
        if (!_record(Action.RecoverExcess, ok, err, expected)) return;
        if (usdc.balanceOf(rescue) - rescueBefore != ghostExcess) ++ghostBadRecoveries;
        if (router.reserved(address(usdc)) != reservedBefore) ++ghostBadRecoveries;
        if (router.held(address(usdc)) != heldBefore) ++ghostBadRecoveries;
        ghostExcess = 0;
    }

    function _adminCall(address caller, bytes memory data) private returns (bool ok, bytes memory err) {
        vm.prank(caller);
        (ok, err) = address(router).call(data);
    }
}
