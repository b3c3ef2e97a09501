// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";

/// @notice voidAuthorization (operator, any time, also paused) and reclaim (anyone, from the capture deadline,
///         also paused) return the whole authorization to the payer; capture and reclaim never both succeed.
contract VoidReclaimTest is EscrowTestBase {
    IPaymentRouter.PayOrder internal o;
    address internal stranger;

    function setUp() public override {
        super.setUp();
        stranger = makeAddr("stranger");
        o = defaultAuth();
        authorize(o);
    }

    function assertReturned(Books memory b) internal view {
        Books memory n = booksOf(address(usdc), buyer);
        vm.assertEq(n.payer - b.payer, 100e6, "payer got it all back");
        vm.assertEq(b.router - n.router, 100e6, "router released it");
        vm.assertEq(n.held, 0, "held");
        vm.assertEq(n.reserved, 0, "reserved");
        vm.assertEq(n.treasury + n.platform + n.merchant, 0, "nobody else paid");
        IPaymentRouter.Order memory rec = router.orders(o.orderId);
        vm.assertEq(rec.authorized, 0, "authorization gone");
        vm.assertEq(rec.amount, 0, "nothing captured");
        vm.assertTrue(rec.paid, "the id stays spent");
    }

    function test_Void_BeforeDeadline() public {
        Books memory b = booksOf(address(usdc), buyer);
        vm.expectEmit();
        emit IPaymentRouter.AuthorizationVoided(o.orderId, buyer, 100e6);
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        assertReturned(b);
    }

    function test_Void_AfterDeadline() public {
        vm.warp(o.captureDeadline + 1 days);
        Books memory b = booksOf(address(usdc), buyer);
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        assertReturned(b);
    }

    function test_Void_WhilePaused() public {
        vm.prank(owner);
        router.pause();
        Books memory b = booksOf(address(usdc), buyer);
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        assertReturned(b);
    }

    function test_RevertWhen_VoidByNonOperator() public {
        address[3] memory callers = [buyer, owner, stranger];
        for (uint256 i; i < callers.length; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, callers[i]));
            router.voidAuthorization(o.orderId);
        }
    }

    function test_RevertWhen_VoidTwiceOrCapturedOrUnknown() public {
        bytes memory notAuthorized = abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId);
        vm.startPrank(operator);
        router.voidAuthorization(o.orderId);
        vm.expectRevert(notAuthorized);
        router.voidAuthorization(o.orderId);
        vm.stopPrank();

        IPaymentRouter.PayOrder memory other = defaultAuth();
        authorize(other);
        capture(other, 1e6, defaultSplit(1e6));
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, other.orderId));
        router.voidAuthorization(other.orderId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, bytes32("never")));
        router.voidAuthorization(bytes32("never"));
        vm.stopPrank();
    }

    function test_RevertWhen_ReclaimBeforeDeadline() public {
        vm.warp(o.captureDeadline - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IPaymentRouter.CaptureNotExpired.selector, o.captureDeadline, block.timestamp)
        );
        vm.prank(buyer);
        router.reclaim(o.orderId);
    }

    /// A third party reclaims at the deadline second: the payer gets the money, the caller nothing.
    function test_Reclaim_AtDeadline_ByThirdParty() public {
        vm.warp(o.captureDeadline);
        Books memory b = booksOf(address(usdc), buyer);
        vm.expectEmit();
        emit IPaymentRouter.AuthorizationReclaimed(o.orderId, buyer, 100e6);
        vm.prank(stranger);
        router.reclaim(o.orderId);
        assertReturned(b);
        vm.assertEq(bal(stranger), 0, "caller gets nothing");
    }

    function test_Reclaim_WhilePaused() public {
        vm.prank(owner);
        router.pause();
        vm.warp(o.captureDeadline + 1);
        Books memory b = booksOf(address(usdc), buyer);
        vm.prank(buyer);
        router.reclaim(o.orderId);
        assertReturned(b);
    }

    function test_RevertWhen_ReclaimTwiceOrAfterVoidOrCapture() public {
        vm.warp(o.captureDeadline);
        router.reclaim(o.orderId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId));
        router.reclaim(o.orderId);

        IPaymentRouter.PayOrder memory voided = defaultAuth();
        IPaymentRouter.PayOrder memory captured = defaultAuth();
        authorize(voided);
        authorize(captured);
        vm.prank(operator);
        router.voidAuthorization(voided.orderId);
        capture(captured, 100e6, defaultSplit(100e6));
        vm.warp(captured.captureDeadline);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, voided.orderId));
        router.reclaim(voided.orderId);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, captured.orderId));
        router.reclaim(captured.orderId);
    }

    /// In every second exactly one of capture and reclaim is possible: the last second before the deadline
    /// only capture, the deadline second only reclaim. Both tried from the same state each time.
    function test_CaptureAndReclaim_OnlyOneInAnySecond() public {
        bytes memory notExpired =
            abi.encodeWithSelector(IPaymentRouter.CaptureNotExpired.selector, o.captureDeadline, o.captureDeadline - 1);
        bytes memory expired =
            abi.encodeWithSelector(IPaymentRouter.CaptureExpired.selector, o.captureDeadline, o.captureDeadline);

        vm.warp(o.captureDeadline - 1);
        uint256 snap = vm.snapshotState();
        vm.expectRevert(notExpired);
        router.reclaim(o.orderId);
        capture(o, 100e6, defaultSplit(100e6));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId));
        router.reclaim(o.orderId);
        vm.revertToState(snap);

        vm.warp(o.captureDeadline);
        snap = vm.snapshotState();
        expectCaptureRevert(expired, o, 100e6, defaultSplit(100e6));
        router.reclaim(o.orderId);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorized.selector, o.orderId), o, 100e6, defaultSplit(100e6)
        );
        vm.revertToState(snap);
    }
}

/// @notice Circle's USDC refuses a blocklisted recipient: the capture (or the reclaim) reverts and the funds stay
///         held until the token lets them move.
contract EscrowBlocklistTest is EscrowTestBase {
    IPaymentRouter.PayOrder internal o;

    function setUp() public override {
        super.setUp();
        o = authOrder(address(fiat), 500e6, S_BPS, P_BPS, R_BPS);
        vm.prank(payer);
        fiat.approve(address(router), type(uint256).max);
        bytes memory sig = sign(o);
        vm.prank(payer);
        router.payOrder(o, sig);
    }

    function blacklist(address who, bool on) internal {
        vm.prank(roles.blacklister);
        if (on) fiat.blacklist(who);
        else fiat.unBlacklist(who);
    }

    function test_Capture_BlocklistedMerchantReverts_PayerReclaims() public {
        blacklist(merchant, true);
        Books memory b = booksOf(address(fiat), payer);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSignature("Error(string)", "Blacklistable: account is blacklisted"));
        router.capture(o, 500e6, 5e6, 25e6, 47e6);
        assertSameBooks(booksOf(address(fiat), payer), b);
        vm.assertEq(router.orders(o.orderId).authorized, 500e6, "still held");

        vm.warp(o.captureDeadline);
        vm.prank(payer);
        router.reclaim(o.orderId);
        vm.assertEq(fbal(payer), FUNDS, "payer whole again");
        vm.assertEq(fbal(address(router)), 0, "router empty");
        vm.assertEq(router.held(address(fiat)), 0, "held");
    }

    function test_Reclaim_BlocklistedPayer_WaitsForTheToken() public {
        blacklist(payer, true);
        vm.warp(o.captureDeadline);
        vm.expectRevert(abi.encodeWithSignature("Error(string)", "Blacklistable: account is blacklisted"));
        router.reclaim(o.orderId);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSignature("Error(string)", "Blacklistable: account is blacklisted"));
        router.voidAuthorization(o.orderId);
        vm.assertEq(router.held(address(fiat)), 500e6, "still held");

        blacklist(payer, false);
        router.reclaim(o.orderId);
        vm.assertEq(fbal(payer), FUNDS, "payer whole again");
    }
}
