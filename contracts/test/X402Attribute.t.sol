// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";

/// @notice Front-running an x402 payment: a third party submits the buyer's TransferWithAuthorization straight to
///         USDC, the funds land in the router unrecorded, and the operator attributes them to the order
///         (attributeTransfer) or returns them to a second payer (returnTransfer). Neither can spend a reserve,
///         an authorization held, or money no payer signed to the router.
contract X402AttributeTest is X402TestBase {
    uint256 internal constant SECOND_KEY = 0xD00D;
    address internal second;

    function setUp() public override {
        super.setUp();
        second = vm.addr(SECOND_KEY);
        mintTo(second, 1_000e6);
    }

    /// @dev A paid order (reserve) and a held authorization, so the router owes something in every test.
    function owe() internal returns (uint256 owed) {
        IPaymentRouter.PayOrder memory paid = x402Order(40e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, paid);
        payX402(paid, a, signX402(PAYER_KEY, a));
        IPaymentRouter.PayOrder memory auth = x402Order(25e6, payer);
        auth.captureDeadline = block.timestamp + 1 days;
        a = x402Auth(payer, auth);
        payX402(auth, a, signX402(PAYER_KEY, a));
        owed = paid.reserveHold + auth.amount;
        vm.assertEq(fbal(address(router)), owed, "router owes reserve + held");
    }

    function test_frontRun_thenAttribute_splitsExactlyAsPayOrder() public {
        uint256 owed = owe();
        IPaymentRouter.PayOrder memory o = x402Order(123_456_789, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);

        uint256 snap = vm.snapshotState();
        payX402(o, a, authSig);
        uint256[5] memory direct = [fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router)), fbal(payer)];
        vm.revertToState(snap);

        frontRun(a, authSig);
        vm.assertEq(unattributed(), o.amount, "funds in the router, unattributed");
        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId,
            payer,
            merchant,
            address(fiat),
            o.amount,
            o.serviceFee,
            o.platformFee,
            o.reserveHold,
            platform,
            block.timestamp + HOLD
        );
        vm.expectEmit();
        emit IPaymentRouter.X402Attributed(o.orderId, payer, a.nonce);
        attribute(o, a);

        uint256[5] memory attributed =
            [fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router)), fbal(payer)];
        for (uint256 i; i < 5; ++i) {
            vm.assertEq(attributed[i], direct[i], string.concat("as relayed ", vm.toString(i)));
        }
        vm.assertEq(fbal(address(router)), owed + o.reserveHold, "router keeps only what it owes");
        vm.assertEq(unattributed(), 0, "nothing stuck in the router");
        vm.assertEq(router.orders(o.orderId).payer, payer, "payer recorded");
        vm.assertTrue(router.x402Consumed(payer, a.nonce), "consumed");
        vm.assertEq(fbal(frontRunner), 0, "front-runner gains nothing");
    }

    function test_frontRun_authorizationOrder_attributedAsHeld() public {
        IPaymentRouter.PayOrder memory o = x402Order(30e6, payer);
        o.captureDeadline = block.timestamp + 1 days;
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        attribute(o, a);
        vm.assertEq(router.held(address(fiat)), o.amount, "held");
        vm.assertEq(unattributed(), 0, "attributed");
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        vm.assertEq(fbal(payer), FUNDS, "voided back to the payer");
    }

    function test_RevertWhen_AttributeUnusedNonce() public {
        owe();
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, payer, a.nonce), o, a);
    }

    function test_RevertWhen_AttributeForAnotherPayer() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, second); // locked to the second payer
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, second, payer), o, a);
        IPaymentRouter.PayOrder memory open = fiatOrder(10e6); // not locked at all
        expectAttributeRevert(err(IPaymentRouter.PayerLockRequired.selector, open.orderId), open, a);
        vm.assertEq(unattributed(), o.amount, "still unattributed");
    }

    function test_RevertWhen_AttributeBeyondUnattributed() public {
        uint256 owed = owe();
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        // The owner moves the unattributed funds out: the router still holds `owed` > o.amount, all of it owed.
        vm.prank(owner);
        router.recoverExcess(address(fiat), owner);
        vm.assertGt(owed, o.amount, "balance alone would cover the order");
        expectAttributeRevert(
            abi.encodeWithSelector(IPaymentRouter.InsufficientUnattributed.selector, 0, o.amount), o, a
        );
        expectReturnRevert(abi.encodeWithSelector(IPaymentRouter.InsufficientUnattributed.selector, 0, a.value), a);
        vm.assertEq(fbal(address(router)), owed, "reserves and held untouched");
    }

    function test_RevertWhen_AttributeByNonOperator() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        bytes memory sig = sign(o);
        IPaymentRouter.ArrivalProof memory proof = proofOf(a);
        address[3] memory callers = [relayer, owner, frontRunner];
        for (uint256 i; i < 3; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, callers[i]));
            router.attributeTransfer(o, sig, payer, a.nonce, proof);
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotPayerOrOperator.selector, callers[i]));
            router.returnTransfer(address(fiat), payer, a.nonce, proof);
        }
    }

    function test_RevertWhen_AttributeWhilePaused_returnWorks() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        vm.prank(owner);
        router.pause();
        expectAttributeRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector), o, a);
        returnX402(a);
        vm.assertEq(fbal(payer), FUNDS, "returned while paused");
    }

    function test_attributeTwice_refused() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        frontRun(a, authSig);
        attribute(o, a);
        expectAttributeRevert(err(IPaymentRouter.AlreadyPaid.selector, o.orderId), o, a);
        IPaymentRouter.PayOrder memory o2 = x402Order(10e6, payer);
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, a.nonce), o2, a);
        expectReturnRevert(abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, a.nonce), a);
    }

    /// Two payers' authorizations land for one order: the first is attributed, the second paid back exactly.
    function test_secondPayer_returnedExactly() public {
        uint256 owed = owe();
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        payX402(o, a, signX402(PAYER_KEY, a));
        AuthUtils.Authorization memory b = x402Auth(second, o);
        bytes memory secondSig = signX402(SECOND_KEY, b);
        frontRun(b, secondSig);
        vm.assertEq(fbal(second), 1_000e6 - o.amount, "second payer debited");
        o.payer = second; // as if the service had signed the order for the second payer too
        expectAttributeRevert(err(IPaymentRouter.AlreadyPaid.selector, o.orderId), o, b);
        vm.expectEmit();
        emit IPaymentRouter.X402Returned(address(fiat), second, b.nonce, b.value);
        returnX402(b);
        vm.assertEq(fbal(second), 1_000e6, "second payer paid back exactly");
        vm.assertEq(fbal(address(router)), owed + o.reserveHold, "router back to what it owes");
        vm.assertTrue(router.x402Consumed(second, b.nonce), "consumed");
        expectReturnRevert(abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, second, b.nonce), b);
        // Attribution of the returned nonce to another order of that payer: refused.
        IPaymentRouter.PayOrder memory o2 = x402Order(10e6, second);
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, second, b.nonce), o2, b);
    }

    function test_RevertWhen_ReturnUnusedNonce() public {
        owe();
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        expectReturnRevert(abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, payer, a.nonce), a);
    }
}
