// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";

/// @notice For any amount and split the API can produce, an x402 payment relayed by the router or front-run and
///         attributed moves exactly what payOrder moves; attribution and return never take the router below
///         reserved + held.
contract X402FuzzTest is X402TestBase {
    uint256 internal constant MAX_AMOUNT = 1e15; // 1,000,000,000 USDC, the API's ceiling
    uint256 internal constant SECOND_KEY = 0xD00D;

    function setUp() public override {
        super.setUp();
        mintTo(payer, MAX_AMOUNT * 6);
        mintTo(vm.addr(SECOND_KEY), MAX_AMOUNT);
    }

    function fuzzOrder(uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps)
        internal
        returns (IPaymentRouter.PayOrder memory o)
    {
        amount = bound(amount, 1, MAX_AMOUNT);
        sBps = bound(sBps, 0, 10_000);
        pBps = bound(pBps, 0, 10_000 - sBps);
        rBps = bound(rBps, 0, 10_000);
        o = splitOrder(address(fiat), amount, sBps, pBps, rBps);
        o.payer = payer;
    }

    function parties() internal view returns (uint256[5] memory) {
        return [fbal(payer), fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router))];
    }

    /// Relayed or front-run and attributed, the parties end with exactly what payOrder gives them.
    function testFuzz_X402SplitIdenticalToPayOrder(uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps) public {
        IPaymentRouter.PayOrder memory o = fuzzOrder(amount, sBps, pBps, rBps);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        bytes memory authSig = signX402(PAYER_KEY, a);
        uint256 before = fbal(payer);

        uint256 snap = vm.snapshotState();
        vm.startPrank(payer);
        fiat.approve(address(router), o.amount);
        router.payOrder(o, sign(o));
        vm.stopPrank();
        uint256[5] memory classic = parties();
        vm.revertToState(snap);

        snap = vm.snapshotState();
        payX402(o, a, authSig);
        uint256[5] memory relayed = parties();
        vm.revertToState(snap);

        frontRun(a, authSig);
        attribute(o, a);
        uint256[5] memory attributed = parties();
        for (uint256 i; i < 5; ++i) {
            vm.assertEq(relayed[i], classic[i], string.concat("relayed ", vm.toString(i)));
            vm.assertEq(attributed[i], classic[i], string.concat("attributed ", vm.toString(i)));
        }
        vm.assertEq(before - attributed[0], o.amount, "payer paid exactly the amount");
        vm.assertEq(attributed[4], o.reserveHold, "router holds the reserve only");
        vm.assertEq(router.reserved(address(fiat)), o.reserveHold, "reserved");
    }

    /// With a reserve owed, an authorization held, the front-run funds possibly recovered by the owner and tokens
    /// donated, attribution either
    /// spends exactly the order's amount of the unattributed funds or reverts InsufficientUnattributed; the
    /// router never ends below reserved + held. Return likewise for a second payer.
    function testFuzz_AttributionNeverBelowOwed(
        uint256 owedAmount,
        uint256 heldAmount,
        uint256 donated,
        uint256 amount,
        uint256 rBps,
        bool recover,
        bool second
    ) public {
        _owe(bound(owedAmount, 1, MAX_AMOUNT), bound(heldAmount, 1, MAX_AMOUNT));
        IPaymentRouter.PayOrder memory o = fuzzOrder(amount, 100, 500, rBps);
        uint256 key = second ? SECOND_KEY : PAYER_KEY;
        AuthUtils.Authorization memory a = x402Auth(vm.addr(key), o);
        bytes memory authSig = signX402(key, a);
        frontRun(a, authSig);
        if (recover) {
            vm.prank(owner);
            router.recoverExcess(address(fiat), owner);
        }
        // Tokens sent to the router directly, around the order's amount (after a recovery: less, or enough).
        donated = bound(donated, 0, 2 * o.amount);
        if (donated != 0) {
            vm.prank(payer);
            fiat.transfer(address(router), donated);
        }
        uint256 available = unattributed();
        uint256 routerBefore = fbal(address(router));
        bool enough = available >= o.amount;
        if (!enough) {
            vm.expectRevert(
                abi.encodeWithSelector(IPaymentRouter.InsufficientUnattributed.selector, available, o.amount)
            );
        }
        if (second) {
            vm.prank(operator);
            router.returnTransfer(address(fiat), a.from, a.nonce, proofOf(a));
            if (enough) vm.assertEq(routerBefore - fbal(address(router)), o.amount, "returned exactly");
        } else {
            attribute(o, a);
            if (enough) vm.assertEq(routerBefore - fbal(address(router)), o.amount - o.reserveHold, "split out");
        }
        vm.assertGe(
            fbal(address(router)),
            router.reserved(address(fiat)) + router.held(address(fiat)),
            "balance >= reserved + held"
        );
        vm.assertEq(unattributed(), enough ? available - o.amount : available, "unattributed spent exactly");
    }

    /// An authorization signed for any other value never pays the order, relayed or attributed.
    function testFuzz_RevertWhen_ValueDiffers(uint256 amount, uint256 signedValue) public {
        IPaymentRouter.PayOrder memory o = fuzzOrder(amount, 100, 500, 1000);
        signedValue = bound(signedValue, 1, MAX_AMOUNT);
        vm.assume(signedValue != o.amount);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        a.value = signedValue;
        bytes memory authSig = signX402(PAYER_KEY, a);
        expectPayX402Revert(errString("FiatTokenV2: invalid signature"), o, a, authSig);
        frontRun(a, authSig); // the buyer's authorization for signedValue lands in the router
        expectAttributeRevert(
            abi.encodeWithSelector(IPaymentRouter.ArrivalValueMismatch.selector, signedValue, o.amount), o, a
        );
        vm.assertEq(unattributed(), signedValue, "left unattributed for return");
    }

    function _owe(uint256 reserveOrderAmount, uint256 heldAmount) internal {
        IPaymentRouter.PayOrder memory paid = fuzzOrder(reserveOrderAmount, 100, 500, 10_000);
        AuthUtils.Authorization memory a = x402Auth(payer, paid);
        payX402(paid, a, signX402(PAYER_KEY, a));
        IPaymentRouter.PayOrder memory auth = fuzzOrder(heldAmount, 100, 500, 1000);
        auth.captureDeadline = block.timestamp + 1 days;
        a = x402Auth(payer, auth);
        payX402(auth, a, signX402(PAYER_KEY, a));
    }
}
