// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {TestBase} from "../utils/TestBase.sol";
import {HandlerBase} from "./HandlerBase.sol";
import {RouterHandler} from "./RouterHandler.sol";

/// @notice The router, TestUSDC and a RouterHandler wired for the invariant runner, and the properties the
///         runs must keep, as checks both the invariant campaign and the deterministic walk call.
abstract contract RouterFixture is TestBase {
    PaymentRouter internal router;
    TestUSDC internal usdc;
    RouterHandler internal handler;

    function setUp() public virtual {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address operator = makeAddr("operator");
        // A 2-day hold (production: 7) so that a 64-call run, whose warps add up to a few days, sees releases.
        router = new PaymentRouter(owner, vm.addr(0xA11CE), operator, makeAddr("treasury"), 2 days);
        usdc = new TestUSDC(address(this));
        handler = new RouterHandler(router, usdc, owner, operator);
        for (uint256 i; i < 6; ++i) {
            usdc.mint(handler.actor(i), 1e18);
        }
        usdc.mint(handler.funder(), 1e18);
        targetContract(address(handler));
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors()}));
    }

    function selectors() public view returns (bytes4[] memory s) {
        s = new bytes4[](20);
        (s[0], s[1], s[2], s[3]) =
        (handler.newOrder.selector, handler.pay.selector, handler.payWithPermit.selector, handler.newRefund.selector);
        (s[4], s[5], s[6], s[7]) =
        (handler.refund.selector, handler.cancelOrders.selector, handler.cancelRefund.selector, handler.settle.selector);
        (s[8], s[9], s[10], s[11]) =
        (handler.warp.selector, handler.pause.selector, handler.unpause.selector, handler.addSigner.selector);
        (s[12], s[13], s[14], s[15]) =
        (
            handler.removeSigner.selector,
            handler.directTransfer.selector,
            handler.recoverExcess.selector,
            handler.setHold.selector
        );
        (s[16], s[17], s[18], s[19]) =
        (
            handler.authorize.selector,
            handler.capture.selector,
            handler.voidAuthorization.selector,
            handler.reclaim.selector
        );
    }

    /// The router holds its reserves and authorizations plus what was sent to it directly and not yet
    /// recovered: balance ≥ reserved + held always, == once recovered; reserved(token) is Σ order reserves and
    /// the handler's ghost sum, held(token) Σ order authorizations and the ghost sum.
    function _checkBalances() internal view {
        uint256 balance = usdc.balanceOf(address(router));
        uint256 reserved = router.reserved(address(usdc));
        uint256 held = router.held(address(usdc));
        vm.assertGe(balance, reserved + held, "balance >= reserved + held");
        vm.assertEq(balance - reserved - held, handler.ghostExcess(), "balance - reserved - held == direct transfers");
        vm.assertEq(reserved, handler.ghostReserve(), "reserved == ghost reserves");
        vm.assertEq(held, handler.ghostHeld(), "held == ghost held");
        uint256 sum;
        uint256 ghostSum;
        uint256 authorized;
        uint256 ghostAuthorized;
        uint256 n = handler.orderCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.orderIds(i);
            IPaymentRouter.Order memory o = router.orders(id);
            sum += o.reserve;
            ghostSum += handler.ghostOrderReserve(id);
            authorized += o.authorized;
            ghostAuthorized += handler.ghostAuthorized(id);
        }
        vm.assertEq(reserved, sum, "reserved == sum of order reserves");
        vm.assertEq(ghostSum, handler.ghostReserve(), "ghost per order == ghost total");
        vm.assertEq(held, authorized, "held == sum of order authorizations");
        vm.assertEq(ghostAuthorized, handler.ghostHeld(), "ghost authorized per order == ghost held");
    }

    /// Per order: paid once, never both cancelled and paid, refunds within the amount, the reserve and the
    /// hold exactly as the model has them.
    function _checkOrders() internal view {
        uint256 n = handler.orderCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.orderIds(i);
            IPaymentRouter.Order memory o = router.orders(id);
            bool cancelled = router.orderCancelled(id);
            vm.assertEq(o.paid, handler.ghostPaid(id), "paid as modelled");
            vm.assertEq(cancelled, handler.ghostCancelled(id), "cancelled as modelled");
            vm.assertFalse(o.paid && cancelled, "a cancelled order was paid");
            vm.assertLe(o.refunded, o.amount, "refunded <= amount");
            vm.assertLe(o.reserve, o.amount - o.refunded, "reserve <= what is left");
            vm.assertEq(o.reserve, handler.ghostOrderReserve(id), "reserve as modelled");
            vm.assertEq(o.releaseAfter, handler.ghostReleaseAfter(id), "releaseAfter = paid at + hold then");
            vm.assertEq(o.authorized, handler.ghostAuthorized(id), "authorized as modelled");
            uint256 authorizedAt = handler.ghostAuthorizedAt(id);
            if (authorizedAt != 0) vm.assertLe(o.amount, authorizedAt, "captured <= authorized");
            if (o.paid) vm.assertEq(o.payer, handler.ghostPayer(id), "payer as modelled");
        }
        vm.assertEq(handler.ghostDoublePays(), 0, "an orderId was paid twice");
        vm.assertEq(handler.ghostCancelledPaid(), 0, "a cancelled order was paid");
        vm.assertEq(handler.ghostOverRefunds(), 0, "a refund went past the order amount");
        vm.assertEq(handler.ghostRefundsToStrangers(), 0, "a refund paid someone other than the payer");
        vm.assertEq(handler.ghostEarlyReleases(), 0, "a reserve moved before releaseAfter");
        vm.assertEq(handler.ghostBadRecoveries(), 0, "recoverExcess took more or less than the excess");
        vm.assertEq(handler.ghostBadMoves(), 0, "a call moved other amounts than modelled");
        vm.assertEq(handler.ghostStrangerGains(), 0, "an authorization paid someone not signed for it");
        vm.assertEq(handler.ghostOverCaptures(), 0, "a capture above the authorized amount");
        vm.assertEq(handler.ghostLateCaptures(), 0, "a capture at or after its capture deadline");
    }

    /// Refund ids, signers, pause and hold are what the handler's successful calls made them, and no call
    /// had an outcome (success or revert data) other than the one the model predicted.
    function _checkModel() internal view {
        uint256 n = handler.refundCount();
        for (uint256 i; i < n; ++i) {
            bytes32 id = handler.refundIdAt(i);
            vm.assertEq(router.refundUsed(id), handler.ghostRefundUsed(id), "refund used as modelled");
            vm.assertEq(router.refundCancelled(id), handler.ghostRefundCancelled(id), "refund cancelled as modelled");
        }
        for (uint256 i; i < 3; ++i) {
            vm.assertEq(router.isSigner(vm.addr(handler.signerKey(i))), handler.ghostSigner(i), "signer set");
        }
        vm.assertEq(router.paused(), handler.ghostPaused(), "paused");
        vm.assertEq(router.reserveHoldSeconds(), handler.ghostHold(), "hold");
        for (uint256 a; a < handler.ACTION_COUNT(); ++a) {
            vm.assertEq(handler.stats(a).unexpected, 0, handler.lastUnexpected());
        }
    }

    /// Every action's counters add up and no outcome was unexpected; returns the calls made and how many of
    /// them were router calls that succeeded.
    function _checkCounters() internal view returns (uint256 calls, uint256 routerSuccesses) {
        for (uint256 a; a < handler.ACTION_COUNT(); ++a) {
            HandlerBase.Stats memory s = handler.stats(a);
            vm.assertEq(s.attempted, s.succeeded + s.reverted + s.skipped + s.unexpected, "counters add up");
            vm.assertEq(s.unexpected, 0, handler.lastUnexpected());
            calls += s.attempted;
            bool local = a == uint256(HandlerBase.Action.NewOrder) || a == uint256(HandlerBase.Action.NewRefund)
                || a == uint256(HandlerBase.Action.Warp) || a == uint256(HandlerBase.Action.DirectTransfer);
            if (!local) routerSuccesses += s.succeeded;
        }
    }
}
