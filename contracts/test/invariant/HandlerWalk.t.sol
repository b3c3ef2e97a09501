// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {HandlerBase} from "./HandlerBase.sol";
import {RouterFixture} from "./RouterFixture.sol";

/// @notice Proof that the handler is not a no-op: one long deterministic walk (the invariant runner's
///         uniform choice of action, a fixed seed) must make every action really succeed and really revert
///         for the predicted reason, release reserves, and keep every invariant along the way. The invariant
///         campaign's runs are short and independent; this is where "some of each action executed" is judged.
///         Run with -vv to print the per-action table.
contract HandlerWalkTest is RouterFixture {
    uint256 internal constant STEPS = 1_500;

    event log(string);

    function _rand(uint256 step, uint256 k) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode("walk", step, k)));
    }

    function _step(uint256 i) internal {
        uint256 a = _rand(i, 0) % 20;
        (uint256 x, uint256 y, uint256 z) = (_rand(i, 1), _rand(i, 2), _rand(i, 3));
        if (a == 0) handler.newOrder(x, y, z, _rand(i, 4), _rand(i, 5));
        else if (a == 1) handler.pay(x, y);
        else if (a == 2) handler.payWithPermit(x, y);
        else if (a == 3) handler.newRefund(x, y, z, _rand(i, 4));
        else if (a == 4) handler.refund(x, y % 2 == 0);
        else if (a == 5) handler.cancelOrders(x, y, z);
        else if (a == 6) handler.cancelRefund(x, y);
        else if (a == 7) handler.settle(x, y, z);
        else if (a == 8) handler.warp(x);
        else if (a == 9) handler.pause(x);
        else if (a == 10) handler.unpause(x);
        else if (a == 11) handler.addSigner(x, y);
        else if (a == 12) handler.removeSigner(x, y);
        else if (a == 13) handler.directTransfer(x, y);
        else if (a == 14) handler.recoverExcess(x);
        else if (a == 15) handler.setHold(x, y);
        else if (a == 16) handler.authorize(x, y, z, _rand(i, 4));
        else if (a == 17) handler.capture(x, y, z, _rand(i, 4));
        else if (a == 18) handler.voidAuthorization(x, y);
        else handler.reclaim(x, y);
    }

    function test_HandlerWalk_EveryActionSucceedsAndRevertsAsPredicted() public {
        vm.assertEq(router.reserveHoldSeconds(), 2 days, "the fixture's hold");
        for (uint256 i; i < STEPS; ++i) {
            _step(i);
            if (i % 100 == 99) {
                _checkBalances();
                _checkOrders();
                _checkModel();
            }
        }
        (uint256 calls,) = _checkCounters();
        vm.assertEq(calls, STEPS, "every step booked once");

        string[20] memory names = [
            "newOrder",
            "pay",
            "payWithPermit",
            "newRefund",
            "refund",
            "cancelOrders",
            "cancelRefund",
            "settle",
            "warp",
            "pause",
            "unpause",
            "addSigner",
            "removeSigner",
            "directTransfer",
            "recoverExcess",
            "setHold",
            "authorize",
            "capture",
            "voidAuthorization",
            "reclaim"
        ];
        emit log("action: attempted / succeeded / reverted as predicted / skipped by bound / unexpected");
        for (uint256 a; a < 20; ++a) {
            HandlerBase.Stats memory s = handler.stats(a);
            emit log(string.concat(
                    names[a],
                    ": ",
                    vm.toString(s.attempted),
                    " / ",
                    vm.toString(s.succeeded),
                    " / ",
                    vm.toString(s.reverted),
                    " / ",
                    vm.toString(s.skipped),
                    " / ",
                    vm.toString(s.unexpected)
                ));
            vm.assertGt(s.succeeded, 0, string.concat(names[a], " never succeeded"));
            bool local = a == uint256(HandlerBase.Action.NewOrder) || a == uint256(HandlerBase.Action.NewRefund)
                || a == uint256(HandlerBase.Action.Warp) || a == uint256(HandlerBase.Action.DirectTransfer);
            if (!local) vm.assertGt(s.reverted, 0, string.concat(names[a], " never reverted as predicted"));
        }
        emit log(string.concat("reserves released: ", vm.toString(handler.ghostReleases())));
        vm.assertGt(handler.ghostReleases(), 0, "no reserve was ever released");
        emit log(string.concat("cancellations while paused: ", vm.toString(handler.ghostCancelsWhilePaused())));
        vm.assertGt(handler.ghostCancelsWhilePaused(), 0, "no cancellation on a paused router");
        emit log(string.concat(
                "captures (partial): ",
                vm.toString(handler.ghostCaptures()),
                " (",
                vm.toString(handler.ghostPartialCaptures()),
                "), voids + reclaims: ",
                vm.toString(handler.ghostReturns())
            ));
        vm.assertGt(handler.ghostPartialCaptures(), 0, "no partial capture");
        vm.assertGt(handler.ghostCaptures() - handler.ghostPartialCaptures(), 0, "no full capture");
        _assertRevertReasonsSeen();
    }

    function checkBalances() external view {
        _checkBalances();
    }

    /// The balance check is not vacuous: one unit the handler did not book fails it.
    function test_HandlerWalk_ChecksCatchUnbookedMoney() public {
        for (uint256 i; i < 200; ++i) {
            _step(i);
        }
        this.checkBalances();
        usdc.mint(address(router), 1);
        vm.expectRevert();
        this.checkBalances();
    }

    /// Each guard (issue 15's, the escrow's of issue 27 and the older ones) stopped at least one call, with its
    /// exact error.
    function _assertRevertReasonsSeen() internal {
        bytes4[25] memory reasons = [
            IPaymentRouter.OrderCancelled.selector,
            IPaymentRouter.WrongPayer.selector,
            IPaymentRouter.InvalidSigner.selector,
            IPaymentRouter.AlreadyPaid.selector,
            IPaymentRouter.OrderExpired.selector,
            IPaymentRouter.RefundNotToPayer.selector,
            IPaymentRouter.RefundAlreadyUsed.selector,
            IPaymentRouter.RefundExceedsOrder.selector,
            IPaymentRouter.OrderNotPaid.selector,
            IPaymentRouter.NotOperator.selector,
            IPaymentRouter.InvalidBatchSize.selector,
            IPaymentRouter.BatchAlreadySettled.selector,
            IPaymentRouter.HoldTooLong.selector,
            IPaymentRouter.ZeroAmount.selector,
            Pausable.EnforcedPause.selector,
            Ownable.OwnableUnauthorizedAccount.selector,
            IERC20Errors.ERC20InsufficientAllowance.selector,
            IPaymentRouter.CaptureDeadlineInvalid.selector,
            IPaymentRouter.NotAuthorized.selector,
            IPaymentRouter.AuthorizationMismatch.selector,
            IPaymentRouter.CaptureExpired.selector,
            IPaymentRouter.CaptureExceedsAuthorized.selector,
            IPaymentRouter.CaptureSplitOutOfBounds.selector,
            IPaymentRouter.CaptureNotExpired.selector,
            IPaymentRouter.NotCaptured.selector
        ];
        string[25] memory names = [
            "OrderCancelled",
            "WrongPayer",
            "InvalidSigner",
            "AlreadyPaid",
            "OrderExpired",
            "RefundNotToPayer",
            "RefundAlreadyUsed",
            "RefundExceedsOrder",
            "OrderNotPaid",
            "NotOperator",
            "InvalidBatchSize",
            "BatchAlreadySettled",
            "HoldTooLong",
            "ZeroAmount",
            "EnforcedPause",
            "OwnableUnauthorizedAccount",
            "ERC20InsufficientAllowance",
            "CaptureDeadlineInvalid",
            "NotAuthorized",
            "AuthorizationMismatch",
            "CaptureExpired",
            "CaptureExceedsAuthorized",
            "CaptureSplitOutOfBounds",
            "CaptureNotExpired",
            "NotCaptured"
        ];
        for (uint256 i; i < reasons.length; ++i) {
            uint256 n = handler.revertsBy(reasons[i]);
            emit log(string.concat("reverted with ", names[i], ": ", vm.toString(n)));
            vm.assertGt(n, 0, string.concat("never reverted with ", names[i]));
        }
        vm.assertGt(handler.revertsBy(Pausable.ExpectedPause.selector), 0, "unpause of a running router");
    }
}
