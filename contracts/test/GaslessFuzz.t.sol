// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {GaslessTestBase} from "./utils/GaslessTestBase.sol";

/// @notice For any amount and split the API can produce, a gasless payment with Circle's USDC moves exactly what
///         payOrder moves for the same order from the same state, and records the same order.
contract GaslessFuzzTest is GaslessTestBase {
    uint256 internal constant MAX_AMOUNT = 1e15; // 1,000,000,000 USDC, the API's ceiling

    function setUp() public override {
        super.setUp();
        mintTo(payer, MAX_AMOUNT);
    }

    function testFuzz_GaslessSplitIdenticalToPayOrder(
        uint256 amount,
        uint256 serviceBps,
        uint256 platformBps,
        uint256 reserveBps,
        uint256 holdSeconds
    ) public {
        amount = bound(amount, 1, MAX_AMOUNT);
        serviceBps = bound(serviceBps, 0, 10_000);
        platformBps = bound(platformBps, 0, 10_000 - serviceBps);
        reserveBps = bound(reserveBps, 0, 10_000);
        holdSeconds = bound(holdSeconds, 0, router.MAX_RESERVE_HOLD());
        vm.prank(owner);
        router.setReserveHold(holdSeconds);
        IPaymentRouter.PayOrder memory o = splitOrder(address(fiat), amount, serviceBps, platformBps, reserveBps);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);

        uint256 snap = vm.snapshotState();
        vm.startPrank(payer);
        fiat.approve(address(router), amount);
        router.payOrder(o, sign(o));
        vm.stopPrank();
        uint256[6] memory classic = _state(o.orderId);
        vm.revertToState(snap);

        uint256 payerBefore = fbal(payer);
        relay(o, a, authSig);
        uint256[6] memory gasless = _state(o.orderId);
        for (uint256 i; i < 6; ++i) {
            vm.assertEq(gasless[i], classic[i], string.concat("state ", vm.toString(i)));
        }
        vm.assertEq(payerBefore - fbal(payer), amount, "payer paid exactly the amount");
        vm.assertEq(fbal(treasury) + fbal(platform) + fbal(merchant) + fbal(address(router)), amount, "shares sum");
        vm.assertEq(fbal(address(router)), o.reserveHold, "router holds the reserve");
        vm.assertEq(fbal(relayer), 0, "relayer gets nothing");
        vm.assertEq(router.orders(o.orderId).payer, payer, "payer recorded");
    }

    /// An authorization signed for any other value never pays the order, and moves nothing.
    function testFuzz_RevertWhen_ValueDiffers(uint256 amount, uint256 signedValue) public {
        amount = bound(amount, 1, MAX_AMOUNT);
        signedValue = bound(signedValue, 0, MAX_AMOUNT * 2);
        vm.assume(signedValue != amount);
        IPaymentRouter.PayOrder memory o = splitOrder(address(fiat), amount, 100, 500, 1000);
        AuthUtils.Authorization memory a = authFor(payer, o);
        a.value = signedValue;
        uint256 before = fbal(payer);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, signAuth(PAYER_KEY, a));
        vm.assertEq(fbal(payer), before, "nothing moved");
    }

    /// Only validBefore <= deadline + 1 is accepted, whatever the deadline.
    function testFuzz_ValidBeforeBound(uint256 validBefore) public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        a.validBefore = bound(validBefore, block.timestamp + 1, type(uint256).max);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        if (a.validBefore > o.deadline + 1) {
            expectRelayRevert(
                abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline),
                o,
                a,
                authSig
            );
        } else {
            relay(o, a, authSig);
            vm.assertTrue(router.orders(o.orderId).paid, "paid");
        }
    }

    function _state(bytes32 orderId) private view returns (uint256[6] memory s) {
        IPaymentRouter.Order memory ord = router.orders(orderId);
        s = [fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router)), ord.reserve, ord.releaseAfter];
    }
}
