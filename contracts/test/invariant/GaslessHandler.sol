// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {AuthUtils} from "../utils/AuthUtils.sol";
import {IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {HandlerStats} from "./HandlerStats.sol";

/// @notice Drives gasless (ERC-3009) and classic payments of the same orders against Circle's real USDC, with
///         faulty authorizations, blacklisting, token and router pauses thrown in. As in RouterHandler, every
///         router call runs in try/catch and is booked against the outcome a model predicts (empty = success,
///         else the exact revert data, router checks first, then the token's), as succeeded / reverted as
///         predicted / skipped / unexpected.
/// @dev RouterHandler's model is written for TestUSDC (OpenZeppelin custom errors, its permits, its mint), so the
///      gasless action lives in this handler over FiatTokenV2_2 rather than in that one.
contract GaslessHandler is HandlerStats {
    enum Action {
        NewOrder,
        PayGasless,
        PayClassic,
        CancelOrder,
        Warp,
        SetBlacklisted,
        SetTokenPaused,
        SetRouterPaused
    }

    uint256 public constant ACTION_COUNT = 8;
    uint256 internal constant PAYERS = 3;
    uint256 internal constant SIGNER_KEY = 0xA11CE;
    uint256 internal constant STRANGER_KEY = 0xBAD;

    PaymentRouter public immutable router;
    IFiatTokenV2_2 public immutable fiat;
    address public immutable owner;
    address public immutable operator;
    address public immutable blacklister;
    address public immutable pauser;
    address public immutable relayer;
    address public immutable merchant;
    address public immutable platform;

    Stats[8] internal _stats;
    /// @dev How many gasless calls reverted as predicted, per injected fault (0 = none).
    uint256[6] public gaslessRevertsByFault;

    IPaymentRouter.PayOrder[] internal _orders;
    mapping(bytes32 orderId => bool) public ghostPaid;
    mapping(bytes32 orderId => bool) public ghostPaidGasless;
    mapping(bytes32 orderId => bool) public ghostCancelled;
    mapping(bytes32 orderId => address) public ghostPayer;
    mapping(address account => uint256) public ghostBalance; // payers' balances as the model has them
    uint256 public ghostReserve;
    bool public ghostRouterPaused;
    bool public ghostTokenPaused;
    bool[3] internal _ghostBlacklisted;
    uint256 internal _nonce;

    constructor(
        PaymentRouter router_,
        IFiatTokenV2_2 fiat_,
        address owner_,
        address operator_,
        address blacklister_,
        address pauser_
    ) {
        router = router_;
        fiat = fiat_;
        owner = owner_;
        operator = operator_;
        blacklister = blacklister_;
        pauser = pauser_;
        relayer = makeAddr("relayer");
        merchant = makeAddr("merchant");
        platform = makeAddr("platform");
        for (uint256 i; i < PAYERS; ++i) {
            // Classic payments need an allowance; gasless ones do not use it.
            vm.prank(payer(i));
            fiat.approve(address(router_), type(uint256).max);
        }
    }

    function payerKey(uint256 seed) public pure returns (uint256) {
        return 0x2000 + seed % PAYERS;
    }

    function payer(uint256 seed) public pure returns (address) {
        return vm.addr(payerKey(seed));
    }

    function orderCount() external view returns (uint256) {
        return _orders.length;
    }

    function orderAt(uint256 i) external view returns (IPaymentRouter.PayOrder memory) {
        return _orders[i];
    }

    function stats(uint256 action) external view returns (Stats memory) {
        return _stats[action];
    }

    function syncBalances() external {
        for (uint256 i; i < PAYERS; ++i) {
            ghostBalance[payer(i)] = fiat.balanceOf(payer(i));
        }
    }

    // ---------------------------------------------------------------- actions

    /// A service-signed order for 1..10,000 USDC, locked to one payer one time in four, live for 1..4 hours.
    function newOrder(uint256 amount, uint256 seed) external {
        amount = bound(amount, 1, 10_000e6);
        uint256 serviceFee = amount / 100;
        uint256 platformFee = amount * 5 / 100;
        _orders.push(
            IPaymentRouter.PayOrder({
                orderId: keccak256(abi.encodePacked("gasless_ord_", ++_nonce)),
                token: address(fiat),
                amount: amount,
                payer: seed % 4 == 0 ? payer(seed >> 2) : address(0),
                merchant: merchant,
                platform: platform,
                serviceFee: serviceFee,
                platformFee: platformFee,
                reserveHold: (amount - serviceFee - platformFee) / 10,
                deadline: block.timestamp + 1 hours * (1 + seed % 4),
                captureDeadline: 0
            })
        );
        _done(Action.NewOrder);
    }

    /// The relayer submits an authorization from payer(`who`) for an order; `fault` picks what is wrong with it:
    /// 0 nothing, 1 another order's nonce, 2 validBefore past the deadline, 3 already expired, 4 signed by a
    /// stranger, 5 signed for another amount.
    function payGasless(uint256 orderSeed, uint256 who, uint256 fault) external {
        if (_orders.length == 0) return _skip(Action.PayGasless);
        IPaymentRouter.PayOrder memory o = _orders[_pick(orderSeed)];
        fault = fault % 24;
        if (fault >= 6) fault = 0; // three in four authorizations are good
        if (fault == 1 && _orders.length < 2) fault = 0;
        address from = payer(who);
        AuthUtils.Authorization memory a = AuthUtils.forOrder(router, from, o);
        uint256 key = payerKey(who);
        if (fault == 1) a.nonce = router.hashPayOrder(_orders[(_pick(orderSeed) + 1) % _orders.length]);
        if (fault == 2) a.validBefore = o.deadline + 2;
        if (fault == 3) a.validBefore = block.timestamp;
        if (fault == 4) key = STRANGER_KEY;
        AuthUtils.Authorization memory signed = a;
        if (fault == 5) signed.value = o.amount + 1;
        bytes memory authSig = AuthUtils.sign(key, fiat, signed);
        bytes memory sig = SigUtils.signPay(SIGNER_KEY, o, address(router));

        bytes memory expected = _expectGasless(o, a, fault);
        vm.prank(relayer);
        try router.payOrderWithAuthorization(o, sig, from, a.validAfter, a.validBefore, a.nonce, authSig) {
            if (_record(Action.PayGasless, true, "", expected)) _paid(o, from, true);
        } catch (bytes memory err) {
            _record(Action.PayGasless, false, err, expected);
            if (keccak256(err) == keccak256(expected)) ++gaslessRevertsByFault[fault];
        }
    }

    /// payer(`who`) pays an order the classic way (allowance), racing the gasless path for the same orders.
    function payClassic(uint256 orderSeed, uint256 who) external {
        if (_orders.length == 0) return _skip(Action.PayClassic);
        IPaymentRouter.PayOrder memory o = _orders[_pick(orderSeed)];
        address from = payer(who);
        bytes memory sig = SigUtils.signPay(SIGNER_KEY, o, address(router));
        bytes memory expected = _expectOrder(o, from);
        if (expected.length == 0) expected = _expectToken(from);
        vm.prank(from);
        try router.payOrder(o, sig) {
            if (_record(Action.PayClassic, true, "", expected)) _paid(o, from, false);
        } catch (bytes memory err) {
            _record(Action.PayClassic, false, err, expected);
        }
    }

    function cancelOrder(uint256 orderSeed) external {
        if (_orders.length == 0) return _skip(Action.CancelOrder);
        bytes32 id = _orders[_pick(orderSeed)].orderId;
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = id;
        vm.prank(operator);
        try router.cancelOrders(ids) {
            if (_record(Action.CancelOrder, true, "", "") && !ghostPaid[id]) ghostCancelled[id] = true;
        } catch (bytes memory err) {
            _record(Action.CancelOrder, false, err, "");
        }
    }

    function warp(uint256 secs) external {
        vm.warp(block.timestamp + bound(secs, 1, 20 minutes));
        _done(Action.Warp);
    }

    /// Blacklists payer(`who`) when `seed` % 8 == 0, else clears it (so payers are mostly clean).
    function setBlacklisted(uint256 who, uint256 seed) external {
        uint256 i = who % PAYERS;
        if (_ghostBlacklisted[i] == (seed % 8 == 0)) return _skip(Action.SetBlacklisted);
        vm.prank(blacklister);
        if (_ghostBlacklisted[i]) fiat.unBlacklist(payer(i));
        else fiat.blacklist(payer(i));
        _ghostBlacklisted[i] = !_ghostBlacklisted[i];
        _done(Action.SetBlacklisted);
    }

    /// Circle's pauser pauses USDC when `seed` % 8 == 0, else unpauses it.
    function setTokenPaused(uint256 seed) external {
        if (ghostTokenPaused == (seed % 8 == 0)) return _skip(Action.SetTokenPaused);
        vm.prank(pauser);
        if (ghostTokenPaused) fiat.unpause();
        else fiat.pause();
        ghostTokenPaused = !ghostTokenPaused;
        _done(Action.SetTokenPaused);
    }

    /// The router's owner pauses it when `seed` % 8 == 0, else unpauses it.
    function setRouterPaused(uint256 seed) external {
        if (ghostRouterPaused == (seed % 8 == 0)) return _skip(Action.SetRouterPaused);
        vm.prank(owner);
        if (ghostRouterPaused) router.unpause();
        else router.pause();
        ghostRouterPaused = !ghostRouterPaused;
        _done(Action.SetRouterPaused);
    }

    // ---------------------------------------------------------------- model

    /// @dev The router's checks for a payment of `o` by `from`, in its order (the service signature is good).
    function _expectOrder(IPaymentRouter.PayOrder memory o, address from) internal view returns (bytes memory) {
        if (ghostRouterPaused) return abi.encodeWithSignature("EnforcedPause()");
        if (block.timestamp > o.deadline) {
            return abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, block.timestamp);
        }
        if (o.payer != address(0) && from != o.payer) {
            return abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, o.payer, from);
        }
        if (ghostPaid[o.orderId]) return abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId);
        if (ghostCancelled[o.orderId]) {
            return abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId);
        }
        return "";
    }

    /// @dev FiatTokenV2_2's modifiers, in their order, for a pull from `from` into the router.
    function _expectToken(address from) internal view returns (bytes memory) {
        if (ghostTokenPaused) return _error("Pausable: paused");
        if (_ghostBlacklisted[_payerIndex(from)]) return _error("Blacklistable: account is blacklisted");
        return "";
    }

    function _expectGasless(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, uint256 fault)
        internal
        view
        returns (bytes memory expected)
    {
        expected = _expectOrder(o, a.from);
        if (expected.length != 0) return expected;
        bytes32 digest = router.hashPayOrder(o);
        if (a.nonce != digest) {
            return abi.encodeWithSelector(IPaymentRouter.AuthorizationNotForOrder.selector, digest, a.nonce);
        }
        if (a.validBefore > o.deadline + 1) {
            return abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline);
        }
        expected = _expectToken(a.from);
        if (expected.length != 0) return expected;
        if (block.timestamp >= a.validBefore) return _error("FiatTokenV2: authorization is expired");
        // An unpaid order's nonce is unused: the token burns it only in a payment of that order.
        if (fault == 4 || fault == 5) return _error("FiatTokenV2: invalid signature");
        return "";
    }

    function _paid(IPaymentRouter.PayOrder memory o, address from, bool gasless) internal {
        ghostPaid[o.orderId] = true;
        ghostPaidGasless[o.orderId] = gasless;
        ghostPayer[o.orderId] = from;
        ghostReserve += o.reserveHold;
        ghostBalance[from] -= o.amount;
    }

    // ---------------------------------------------------------------- bookkeeping (HandlerStats)

    function _record(Action a, bool ok, bytes memory err, bytes memory expected) internal returns (bool) {
        _tally(_stats[uint256(a)], "gasless action ", uint256(a), ok, err, expected);
        return ok;
    }

    function _skip(Action a) internal {
        _skipped(_stats[uint256(a)]);
    }

    function _done(Action a) internal {
        _succeeded(_stats[uint256(a)]);
    }

    /// @dev Three times in four one of the four newest orders, else any.
    function _pick(uint256 seed) internal view returns (uint256) {
        uint256 len = _orders.length;
        if (seed % 4 != 0) return len - 1 - (seed >> 2) % (len < 4 ? len : 4);
        return (seed >> 2) % len;
    }

    function _payerIndex(address who) internal pure returns (uint256) {
        for (uint256 i; i < PAYERS; ++i) {
            if (who == payer(i)) return i;
        }
        revert("not a payer");
    }

    function _error(string memory reason) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("Error(string)", reason);
    }
}
