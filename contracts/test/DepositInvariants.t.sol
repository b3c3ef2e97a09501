// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DepositFactory} from "../src/DepositFactory.sol";
import {IDepositForwarder, DepositTerms} from "../src/IDepositForwarder.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {PaymentRouter} from "../src/PaymentRouter.sol";
import {TestUSDC} from "../src/TestUSDC.sol";
import {CircleUSDC, IFiatTokenV2_2} from "./utils/CircleUSDC.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {TestBase} from "./utils/TestBase.sol";

interface IAllowance {
    function allowance(address owner, address spender) external view returns (uint256);
}

/// @notice Random transfers, time warps, sweeps (good, empty, foreign and wrong-payer signatures) and returnToken
///         calls by random callers — the service's signer, operator and owner among them — on one deposit address,
///         with a wallet paying the same orderId, operator cancels and router pauses thrown in. Every call that
///         can move the deposit's funds is checked on the spot: what left it went to the order's parties (exactly
///         the amount, at most once) or to refundTo, and nobody else's balance moved.
contract DepositHandler is TestBase {
    uint256 internal constant SIGNER_KEY = 0xA11CE;
    uint256 internal constant OTHER_KEY = 0xB0B;

    DepositFactory public immutable factory;
    PaymentRouter public immutable router;
    IFiatTokenV2_2 public immutable fiat;
    TestUSDC public immutable other;
    address public immutable deposit;
    address public immutable refundTo;
    address public immutable funder;
    address public immutable wallet;
    address public immutable treasury;
    address[] internal callers;
    DepositTerms internal t;

    uint256 public arrived;
    uint256 public paidByDeposit;
    uint256 public payCount;
    uint256 public returned;
    uint256 public otherArrived;
    uint256 public refundedIn; // router refunds (to the recorded payer = the deposit) that landed on the deposit
    uint256 internal refundNonce;
    uint256 public lateSweeps;
    uint256 public violations;
    string public lastViolation;

    constructor(
        DepositFactory factory_,
        IFiatTokenV2_2 fiat_,
        TestUSDC other_,
        DepositTerms memory terms_,
        address refundTo_,
        address funder_,
        address wallet_,
        address[] memory callers_
    ) {
        factory = factory_;
        router = PaymentRouter(factory_.router());
        fiat = fiat_;
        other = other_;
        t = terms_;
        refundTo = refundTo_;
        funder = funder_;
        wallet = wallet_;
        treasury = router.serviceTreasury();
        callers = callers_;
        deposit = factory_.predict(terms_, refundTo_);
    }

    function terms() external view returns (DepositTerms memory) {
        return t;
    }

    // ------------------------------------------------------------ actions

    function send(uint256 amount) external {
        amount = bound(amount, 1, 2 * t.amount);
        vm.prank(funder);
        fiat.transfer(deposit, amount);
        arrived += amount;
    }

    function sendOther(uint256 amount) external {
        amount = bound(amount, 1, 1e24);
        other.mint(deposit, amount);
        otherArrived += amount;
    }

    function warp(uint256 secs) external {
        vm.warp(block.timestamp + bound(secs, 0, 15 minutes));
    }

    function sweep(uint256 who, uint256 sigKind, bool viaFactory) external {
        bytes memory sig = _sig(sigKind);
        address caller = callers[who % callers.length];
        bool late = block.timestamp > t.deadline;
        Snap memory s = _snap(caller);
        bool ok;
        if (viaFactory || deposit.code.length == 0) {
            vm.prank(caller);
            try factory.deployAndSweep(t, refundTo, sig) {
                ok = true;
            } catch {}
        } else {
            vm.prank(caller);
            try IDepositForwarder(deposit).sweep(sig) {
                ok = true;
            } catch {}
        }
        _book(s, caller);
        if (ok && late) {
            ++lateSweeps;
            if (fiat.balanceOf(deposit) != 0) _violation("balance left after a past-deadline sweep");
        }
    }

    function returnToken(uint256 who, bool otherToken) external {
        if (deposit.code.length == 0) factory.deploy(t, refundTo);
        address caller = callers[who % callers.length];
        Snap memory s = _snap(caller);
        uint256 otherBefore = other.balanceOf(deposit) + other.balanceOf(refundTo);
        vm.prank(caller);
        try IDepositForwarder(deposit).returnToken(otherToken ? address(other) : address(fiat)) {} catch {}
        _book(s, caller);
        if (other.balanceOf(deposit) + other.balanceOf(refundTo) != otherBefore) _violation("other token escaped");
    }

    /// @dev A wallet pays a payer=address(0) PayOrder of the same orderId ("another method").
    function walletPays(uint256 seed) external {
        if (seed % 4 != 0) return; // rarer than the deposit's own actions
        IPaymentRouter.PayOrder memory o = _order(address(0));
        bytes memory sig = SigUtils.signPay(SIGNER_KEY, o, address(router));
        vm.prank(wallet);
        try router.payOrder(o, sig) {} catch {}
    }

    /// @dev The operator refunds part of a deposit-paid order from its reserve: it lands on the deposit (the payer).
    function refund(uint256 value) external {
        IPaymentRouter.Order memory rec = router.orders(t.orderId);
        if (rec.payer != deposit || rec.reserve == 0) return;
        value = bound(value, 1, rec.reserve);
        IPaymentRouter.RefundOrder memory r = IPaymentRouter.RefundOrder({
            orderId: t.orderId,
            refundId: keccak256(abi.encode("re_deposit", ++refundNonce)),
            to: deposit,
            amount: value,
            deadline: block.timestamp
        });
        bytes memory sig = SigUtils.signRefund(SIGNER_KEY, r, address(router));
        uint256 before = fiat.balanceOf(deposit);
        vm.prank(router.operator());
        try router.refund(r, sig) {} catch {}
        refundedIn += fiat.balanceOf(deposit) - before;
    }

    function cancel(uint256 seed) external {
        if (seed % 4 != 0) return;
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = t.orderId;
        vm.prank(router.operator());
        try router.cancelOrders(ids) {} catch {}
    }

    function togglePause() external {
        address owner = router.owner();
        bool paused = router.paused();
        vm.prank(owner);
        if (paused) router.unpause();
        else router.pause();
    }

    // ------------------------------------------------------------ booking

    struct Snap {
        uint256 deposit;
        uint256 refundTo;
        uint256 parties;
        uint256 caller;
        uint256 outsiders;
    }

    function _snap(address caller) private view returns (Snap memory s) {
        s.deposit = fiat.balanceOf(deposit);
        s.refundTo = fiat.balanceOf(refundTo);
        s.parties = _parties();
        s.caller = fiat.balanceOf(caller);
        for (uint256 i; i < callers.length; ++i) {
            s.outsiders += fiat.balanceOf(callers[i]);
        }
        s.outsiders += fiat.balanceOf(funder) + fiat.balanceOf(wallet);
    }

    /// @dev What left the deposit during one call went to the parties (0 or exactly the amount) or to refundTo.
    function _book(Snap memory s, address caller) private {
        Snap memory n = _snap(caller);
        if (n.deposit > s.deposit) return _violation("deposit grew during a call");
        if (n.refundTo < s.refundTo || n.parties < s.parties) return _violation("refundTo or parties lost funds");
        uint256 out = s.deposit - n.deposit;
        uint256 toParties = n.parties - s.parties;
        uint256 toRefund = n.refundTo - s.refundTo;
        if (toParties != 0 && toParties != t.amount) _violation("order got other than its amount");
        if (out != toParties + toRefund) _violation("funds went elsewhere");
        if (n.caller != s.caller || n.outsiders != s.outsiders) _violation("a caller or outsider gained");
        if (toParties != 0) {
            paidByDeposit += toParties;
            ++payCount;
        }
        returned += toRefund;
        if (IAllowance(address(fiat)).allowance(deposit, address(router)) != 0) _violation("allowance left");
    }

    function _parties() private view returns (uint256) {
        return fiat.balanceOf(treasury) + fiat.balanceOf(t.merchant) + fiat.balanceOf(t.platform)
            + fiat.balanceOf(address(router));
    }

    function _sig(uint256 kind) private view returns (bytes memory) {
        kind %= 5;
        if (kind == 0 || kind == 1) return SigUtils.signPay(SIGNER_KEY, _order(deposit), address(router));
        if (kind == 2) return "";
        if (kind == 3) return SigUtils.signPay(OTHER_KEY, _order(deposit), address(router));
        return SigUtils.signPay(SIGNER_KEY, _order(address(0)), address(router)); // payer = anyone: refused
    }

    function _order(address payer) private view returns (IPaymentRouter.PayOrder memory) {
        return IPaymentRouter.PayOrder({
            orderId: t.orderId,
            token: t.token,
            amount: t.amount,
            payer: payer,
            merchant: t.merchant,
            platform: t.platform,
            serviceFee: t.serviceFee,
            platformFee: t.platformFee,
            reserveHold: t.reserveHold,
            deadline: t.deadline,
            captureDeadline: 0
        });
    }

    function _violation(string memory what) private {
        ++violations;
        lastViolation = what;
    }
}

contract DepositInvariantsTest is TestBase {
    DepositHandler internal h;
    IFiatTokenV2_2 internal fiat;
    PaymentRouter internal router;
    TestUSDC internal other;
    address internal refundTo;
    address internal wallet;
    uint256 internal amount = 100e6;

    function setUp() public {
        vm.warp(1_750_000_000);
        address owner = makeAddr("owner");
        address operator = makeAddr("operator");
        address signer = vm.addr(0xA11CE);
        router = new PaymentRouter(owner, signer, operator, makeAddr("treasury"), 2 days);
        CircleUSDC.Roles memory roles = CircleUSDC.testRoles();
        fiat = CircleUSDC.deploy(roles);
        other = new TestUSDC(address(this));
        DepositFactory factory = new DepositFactory(address(router));
        refundTo = makeAddr("refundTo");
        wallet = makeAddr("wallet");
        address funder = makeAddr("funder");

        address[] memory callers = new address[](5);
        callers[0] = signer;
        callers[1] = operator;
        callers[2] = owner;
        callers[3] = makeAddr("relayer");
        callers[4] = makeAddr("stranger");

        DepositTerms memory t = DepositTerms({
            orderId: keccak256("ord_deposit_invariant"),
            token: address(fiat),
            amount: amount,
            merchant: makeAddr("merchant"),
            platform: makeAddr("platform"),
            serviceFee: 1e6,
            platformFee: 5e6,
            reserveHold: 9.4e6,
            deadline: block.timestamp + 1 hours
        });
        h = new DepositHandler(factory, fiat, other, t, refundTo, funder, wallet, callers);
        other.transferOwnership(address(h)); // the handler mints the token sent by mistake

        address[] memory holders = new address[](2);
        holders[0] = funder;
        holders[1] = wallet;
        CircleUSDC.mint(fiat, roles.masterMinter, makeAddr("usdc minter"), holders, 1e15);
        vm.prank(wallet);
        fiat.approve(address(router), type(uint256).max);
        targetContract(address(h));
    }

    /// @dev Everything that arrived (transfers and router refunds) is still there, was paid to the order (exactly its amount, once) or returned.
    function invariant_paidPlusReturnedPlusLeftIsArrived() public view {
        vm.assertEq(h.violations(), 0, h.lastViolation());
        address deposit = h.deposit();
        vm.assertEq(
            fiat.balanceOf(deposit) + h.returned() + h.paidByDeposit(), h.arrived() + h.refundedIn(), "conservation"
        );
        vm.assertEq(fiat.balanceOf(refundTo), h.returned(), "refundTo got only returns");
        vm.assertLe(h.payCount(), 1, "paid at most once");
        bool paidByDeposit = router.orders(h.terms().orderId).payer == deposit;
        vm.assertEq(h.paidByDeposit(), paidByDeposit ? amount : 0, "paid exactly the amount iff the router says so");
        vm.assertEq(other.balanceOf(deposit) + other.balanceOf(refundTo), h.otherArrived(), "other token");
        vm.assertEq(IAllowance(address(fiat)).allowance(deposit, address(router)), 0, "no allowance left");
    }
}
