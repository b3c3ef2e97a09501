// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";

/// @notice The capture split window, against a model written here: for A authorized, c captured and a signed
///         leg f of total T (A for the fees, the merchant's gross for the reserve), the leg y of x (c, or the
///         captured gross) is accepted iff ⌊x·f/T⌋ <= y <= ⌊(x·(f+1) - 1)/T⌋ (largest y with y·T < x·(f+1));
///         x == 0 allows only 0, T == 0 (nothing signed for the merchant) any reserve up to x.
contract CaptureWindowTest is EscrowTestBase {
    uint256 internal constant MAX_AMOUNT = 1e30; // keeps the model's products below 2^256

    struct Case {
        IPaymentRouter.PayOrder order;
        uint256 c;
        Split service; // the service's split of c
    }

    function _setUpCase(uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps, uint256 c)
        internal
        returns (Case memory k)
    {
        // Half the runs on small amounts (where rounding matters most), a quarter with fees of exactly 100%.
        amount = bound(amount, 1, (rBps >> 128) % 2 == 0 ? 1000 : MAX_AMOUNT);
        sBps = bound(sBps, 0, 10_000);
        pBps = (rBps >> 136) % 4 == 0 ? 10_000 - sBps : bound(pBps, 0, 10_000 - sBps);
        rBps = bound(rBps, 0, 10_000);
        k.c = bound(c, 1, amount);
        k.order = authOrder(address(usdc), amount, sBps, pBps, rBps);
        usdc.mint(buyer, amount);
        authorize(k.order);
        k.service = serviceSplit(k.c, sBps, pBps, rBps);
    }

    function _legOk(uint256 x, uint256 y, uint256 total, uint256 f) internal pure returns (bool) {
        if (x == 0) return y == 0;
        return x * f / total <= y && y <= (x * (f + 1) - 1) / total;
    }

    function _accepts(IPaymentRouter.PayOrder memory o, uint256 c, Split memory y) internal pure returns (bool) {
        if (y.serviceFee + y.platformFee + y.reserveHold > c) return false;
        uint256 grossSigned = o.amount - o.serviceFee - o.platformFee;
        uint256 gross = c - y.serviceFee - y.platformFee;
        bool reserveOk =
            grossSigned == 0 ? y.reserveHold <= gross : _legOk(gross, y.reserveHold, grossSigned, o.reserveHold);
        return _legOk(c, y.serviceFee, o.amount, o.serviceFee) && _legOk(c, y.platformFee, o.amount, o.platformFee)
            && reserveOk;
    }

    /// Captures `y` of `k` and checks every balance delta to the base unit: legs + returned == authorized.
    function _captureExact(Case memory k, Split memory y) internal {
        Books memory b = booksOf(address(usdc), buyer);
        capture(k.order, k.c, y);
        Books memory n = booksOf(address(usdc), buyer);
        uint256 merchantNow = k.c - y.serviceFee - y.platformFee - y.reserveHold;
        uint256 returned = n.payer - b.payer;
        vm.assertEq(returned, k.order.amount - k.c, "payer gets A - c");
        vm.assertEq(n.treasury - b.treasury, y.serviceFee, "treasury");
        vm.assertEq(n.platform - b.platform, y.platformFee, "platform");
        vm.assertEq(n.merchant - b.merchant, merchantNow, "merchant");
        vm.assertEq(n.router, y.reserveHold, "router keeps the reserve");
        vm.assertEq(n.reserved, y.reserveHold, "reserved");
        vm.assertEq(n.held, 0, "held");
        vm.assertEq(
            returned + y.serviceFee + y.platformFee + merchantNow + y.reserveHold, k.order.amount, "legs sum to A"
        );
    }

    function testFuzz_CaptureSplitWithinWindow(uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps, uint256 c)
        public
    {
        Case memory k = _setUpCase(amount, sBps, pBps, rBps, c);
        vm.assertTrue(_accepts(k.order, k.c, k.service), "model: the service's split lies in the window");
        _captureExact(k, k.service);
    }

    /// One leg moved one unit: refused exactly when the model puts it outside the window (always, where the
    /// leg's window is a single value), else captured with exact deltas. Never more than one unit of slack.
    function testFuzz_CaptureSplitOneUnitOff(
        uint256 amount,
        uint256 sBps,
        uint256 pBps,
        uint256 rBps,
        uint256 c,
        uint8 leg,
        bool up
    ) public {
        Case memory k = _setUpCase(amount, sBps, pBps, rBps, c);
        Split memory y = Split(k.service.serviceFee, k.service.platformFee, k.service.reserveHold);
        leg %= 3;
        uint256 v = leg == 0 ? y.serviceFee : leg == 1 ? y.platformFee : y.reserveHold;
        v = up || v == 0 ? v + 1 : v - 1;
        if (leg == 0) y.serviceFee = v;
        else if (leg == 1) y.platformFee = v;
        else y.reserveHold = v;
        if (leg < 2) {
            uint256 f = leg == 0 ? k.order.serviceFee : k.order.platformFee;
            bool tight = k.c * f / k.order.amount == (k.c * (f + 1) - 1) / k.order.amount;
            if (tight) vm.assertFalse(_accepts(k.order, k.c, y), "model: a tight window refuses a unit off");
        }
        if (_accepts(k.order, k.c, y)) {
            _captureExact(k, y);
        } else {
            expectCaptureRevert(outOfBounds(k.c, y), k.order, k.c, y);
        }
    }

    /// At c = A every window is the signed value: the capture equals the payment as signed.
    function testFuzz_CaptureFull_OnlySignedSplit(uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps, uint8 leg)
        public
    {
        Case memory k = _setUpCase(amount, sBps, pBps, rBps, type(uint256).max);
        k.c = k.order.amount;
        Split memory signed = Split(k.order.serviceFee, k.order.platformFee, k.order.reserveHold);
        Split memory y = Split(signed.serviceFee, signed.platformFee, signed.reserveHold);
        if (leg % 3 == 0) y.serviceFee += 1;
        else if (leg % 3 == 1) y.platformFee += 1;
        else y.reserveHold += 1;
        expectCaptureRevert(outOfBounds(k.c, y), k.order, k.c, y);
        _captureExact(k, signed);
    }

    /// Fees of 100% (5000 + 5000 bps) on 3 units: signed 1 / 1, gross 1. Capturing 2 gives fees 1 / 1 and a
    /// gross of 0, so the reserve must be 0 and is accepted (the window of a zero gross is {0}).
    function test_Capture_FeesTakeAllOfCapture_ZeroGross() public {
        IPaymentRouter.PayOrder memory o = authOrder(address(usdc), 3, 5000, 5000, 10_000);
        authorize(o);
        vm.assertEq(o.reserveHold, 1, "signed reserve: the whole gross");
        Split memory x = serviceSplit(2, 5000, 5000, 10_000);
        vm.assertEq(x.serviceFee + x.platformFee, 2, "fees take all of c");
        expectCaptureRevert(outOfBounds(2, Split(1, 1, 1)), o, 2, Split(1, 1, 1));
        _captureExact(Case(o, 2, x), x);
    }

    /// Nothing signed for the merchant (fees 100% on an even amount): any reserve up to the captured gross.
    function test_Capture_SignedGrossZero_ReserveUpToGross() public {
        IPaymentRouter.PayOrder memory o = authOrder(address(usdc), 2, 5000, 5000, 1000);
        authorize(o);
        vm.assertEq(o.amount - o.serviceFee - o.platformFee, 0, "no gross signed");
        Split memory x = serviceSplit(1, 5000, 5000, 1000); // 0, 0, gross 1, reserve 0
        expectCaptureRevert(outOfBounds(1, Split(0, 0, 2)), o, 1, Split(0, 0, 2));
        uint256 snap = vm.snapshotState();
        _captureExact(Case(o, 1, x), Split(0, 0, 1));
        vm.revertToState(snap);
        _captureExact(Case(o, 1, x), x);
    }

    /// Where the window is two values wide, the neighbour of the service's value is accepted, and nothing beyond.
    function test_Capture_WindowOfTwo() public {
        IPaymentRouter.PayOrder memory o = authOrder(address(usdc), 3, 5000, 0, 0); // service 1 of 3
        authorize(o);
        Split memory x = serviceSplit(2, 5000, 0, 0);
        vm.assertEq(x.serviceFee, 1, "service's fee of 2");
        expectCaptureRevert(outOfBounds(2, Split(2, 0, 0)), o, 2, Split(2, 0, 0));
        uint256 snap = vm.snapshotState();
        _captureExact(Case(o, 2, x), Split(0, 0, 0)); // ⌊2·1/3⌋ = 0 <= 0
        vm.revertToState(snap);
        _captureExact(Case(o, 2, x), x);
    }
}
