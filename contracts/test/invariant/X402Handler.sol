// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {AuthUtils} from "../utils/AuthUtils.sol";
import {IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {X402Utils} from "../utils/X402Utils.sol";
import {GaslessHandler} from "./GaslessHandler.sol";

/// @notice GaslessHandler plus the x402 paths over the same orders, payers, pauses and blacklists: orders locked
///         to a payer, the router relaying a TransferWithAuthorization (with faults), a third party front-running
///         one straight to USDC, the operator attributing it (to its order, another order, or with a forged
///         signature) or returning it. Each router call is booked against the model's exact prediction.
contract X402Handler is GaslessHandler {
    enum X {
        NewLockedOrder,
        PayX402,
        FrontRun,
        Attribute,
        Return
    }

    uint256 public constant X_ACTION_COUNT = 5;

    /// @dev An authorization that moved funds into the router (relayed, or front-run); consumed once counted.
    struct Landed {
        AuthUtils.Authorization auth;
        uint256 key;
        uint256 orderIndex;
        bool consumed;
    }

    Stats[5] internal _xStats;
    Landed[] internal _landed;
    /// @dev Funds the model has in the router that no order or return accounted for yet.
    uint256 public ghostUnattributed;
    uint256 internal _xNonce;

    constructor(
        PaymentRouter router_,
        IFiatTokenV2_2 fiat_,
        address owner_,
        address operator_,
        address blacklister_,
        address pauser_
    ) GaslessHandler(router_, fiat_, owner_, operator_, blacklister_, pauser_) {}

    function xStats(uint256 action) external view returns (Stats memory) {
        return _xStats[action];
    }

    function landedCount() external view returns (uint256) {
        return _landed.length;
    }

    function landedAt(uint256 i) external view returns (AuthUtils.Authorization memory, bool consumed) {
        return (_landed[i].auth, _landed[i].consumed);
    }

    // ---------------------------------------------------------------- actions

    /// An x402 order: locked to payer(`seed`), 1..10,000 USDC, live 1..4 hours.
    function newLockedOrder(uint256 amount, uint256 seed) external {
        this.newOrder(amount, 0);
        IPaymentRouter.PayOrder storage o = _orders[_orders.length - 1];
        o.payer = payer(seed);
        o.deadline = block.timestamp + 1 hours * (1 + (seed >> 8) % 4);
        _succeeded(_xStats[uint256(X.NewLockedOrder)]);
    }

    /// The relayer submits payer(`who`)'s x402 authorization through the router. `fault`: 0 none, 1 validBefore
    /// past the deadline, 2 expired, 3 signed by a stranger, 4 signed for another value, 5 a nonce the router
    /// already counted, 6 a nonce a front-runner already used at the token.
    function payX402(uint256 orderSeed, uint256 who, uint256 fault) external {
        if (_orders.length == 0) return _xSkip(X.PayX402);
        uint256 idx = _pick(orderSeed);
        IPaymentRouter.PayOrder memory o = _orders[idx];
        fault = fault % 14;
        if (fault >= 7 || (fault >= 5 && _landed.length == 0)) fault = 0;
        (AuthUtils.Authorization memory a, uint256 key) = _freshAuth(o, payer(who), payerKey(who));
        if (fault >= 5) {
            Landed storage l = _landed[(who >> 8) % _landed.length];
            if (l.consumed != (fault == 5)) return _xSkip(X.PayX402);
            (a.nonce, a.from, key) = (l.auth.nonce, l.auth.from, l.key);
        }
        if (fault == 1) a.validBefore = o.deadline + 2;
        if (fault == 2) a.validBefore = block.timestamp;
        if (fault == 3) key = 0xBAD;
        AuthUtils.Authorization memory signed = _copy(a);
        if (fault == 4) signed.value = a.value + 1;
        bytes memory authSig = X402Utils.sign(key, fiat, signed);
        bytes memory expected = _expectPay(o, a, fault);
        bytes memory sig = SigUtils.signPay(0xA11CE, o, address(router));
        vm.prank(relayer);
        try router.payOrderWithTransfer(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig) {
            if (_book(X.PayX402, true, "", expected)) {
                _paid(o, a.from, false);
                _landed.push(Landed(a, key, idx, true));
            }
        } catch (bytes memory err) {
            _book(X.PayX402, false, err, expected);
        }
    }

    /// A third party submits a good x402 authorization for an order straight to USDC (usually from the order's
    /// locked payer, one in four from payer(`who`)). Not a router call: skipped when the token would refuse it.
    function frontRun(uint256 orderSeed, uint256 who) external {
        if (_orders.length == 0 || ghostTokenPaused) return _xSkip(X.FrontRun);
        uint256 idx = orderSeed % 4 != 0 ? _newestOpen(orderSeed) : _pick(orderSeed);
        IPaymentRouter.PayOrder memory o = _orders[idx];
        uint256 key = o.payer != address(0) && who % 4 != 0 ? _keyOf(o.payer) : payerKey(who);
        (AuthUtils.Authorization memory a,) = _freshAuth(o, vm.addr(key), key);
        if (_ghostBlacklisted[_payerIndex(a.from)]) return _xSkip(X.FrontRun);
        bytes memory authSig = X402Utils.sign(key, fiat, a);
        vm.prank(makeAddr("front-runner"));
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        _landed.push(Landed(a, key, idx, false));
        ghostUnattributed += a.value;
        ghostBalance[a.from] -= a.value;
        _succeeded(_xStats[uint256(X.FrontRun)]);
    }

    /// The operator attributes a landed authorization. `fault`: 0 to its own order, 1 to another order, 2 with a
    /// stranger's signature.
    function attribute(uint256 landedSeed, uint256 orderSeed, uint256 fault) external {
        if (_landed.length == 0) return _xSkip(X.Attribute);
        Landed storage l = _landed[_pickLanded(landedSeed)];
        fault = fault % 6;
        if (fault >= 3) fault = 0;
        IPaymentRouter.PayOrder memory o = _orders[fault == 1 ? _pick(orderSeed) : l.orderIndex];
        AuthUtils.Authorization memory a = l.auth;
        bytes memory authSig = X402Utils.sign(fault == 2 ? 0xBAD : l.key, fiat, a);
        bytes memory expected = _expectAttribute(o, l, fault);
        bytes memory sig = SigUtils.signPay(0xA11CE, o, address(router));
        vm.prank(operator);
        try router.attributeTransfer(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig) {
            if (_book(X.Attribute, true, "", expected)) {
                l.consumed = true;
                ghostUnattributed -= o.amount;
                ghostPaid[o.orderId] = true;
                ghostPayer[o.orderId] = a.from;
                ghostReserve += o.reserveHold;
            }
        } catch (bytes memory err) {
            _book(X.Attribute, false, err, expected);
        }
    }

    /// The operator returns a landed authorization to its payer (`fault` % 4 == 1: asks for one unit more).
    function returnLanded(uint256 landedSeed, uint256 fault) external {
        if (_landed.length == 0) return _xSkip(X.Return);
        Landed storage l = _landed[_pickLanded(landedSeed)];
        AuthUtils.Authorization memory a = _copy(l.auth);
        if (fault % 4 == 1) a.value += 1;
        bytes memory authSig = X402Utils.sign(l.key, fiat, l.auth);
        bytes memory expected;
        if (l.consumed) expected = abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, a.from, a.nonce);
        else if (fault % 4 == 1) expected = _invalidAuth(a);
        else if (ghostTokenPaused) expected = _error("Pausable: paused");
        else if (_ghostBlacklisted[_payerIndex(a.from)]) expected = _error("Blacklistable: account is blacklisted");
        vm.prank(operator);
        try router.returnTransfer(address(fiat), a.from, a.value, a.validAfter, a.validBefore, a.nonce, authSig) {
            if (_book(X.Return, true, "", expected)) {
                l.consumed = true;
                ghostUnattributed -= a.value;
                ghostBalance[a.from] += a.value;
            }
        } catch (bytes memory err) {
            _book(X.Return, false, err, expected);
        }
    }

    // ---------------------------------------------------------------- model

    function _expectPay(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, uint256 fault)
        internal
        view
        returns (bytes memory expected)
    {
        expected = _expectX402Order(o, a);
        if (expected.length != 0) return expected;
        if (fault == 5) return abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, a.from, a.nonce);
        expected = _expectToken(a.from);
        if (expected.length != 0) return expected;
        if (block.timestamp >= a.validBefore) return _error("FiatTokenV2: authorization is expired");
        if (fault == 6) return _error("FiatTokenV2: authorization is used or canceled");
        if (fault == 3 || fault == 4) return _error("FiatTokenV2: invalid signature");
        return "";
    }

    function _expectAttribute(IPaymentRouter.PayOrder memory o, Landed storage l, uint256 fault)
        internal
        view
        returns (bytes memory expected)
    {
        AuthUtils.Authorization memory a = l.auth;
        expected = _expectX402Order(o, a);
        if (expected.length != 0) return expected;
        if (l.consumed) return abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, a.from, a.nonce);
        if (fault == 2 || a.value != o.amount) return _invalidAuth(a);
        if (ghostUnattributed < o.amount) {
            return abi.encodeWithSelector(IPaymentRouter.InsufficientUnattributed.selector, ghostUnattributed, o.amount);
        }
        if (ghostTokenPaused) return _error("Pausable: paused"); // the split's first transfer
        return "";
    }

    /// @dev Pause, payer lock, the order checks for payer `a.from`, and the validBefore bound, in the router's order.
    function _expectX402Order(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a)
        internal
        view
        returns (bytes memory expected)
    {
        if (ghostRouterPaused) return abi.encodeWithSignature("EnforcedPause()");
        if (o.payer == address(0)) return abi.encodeWithSelector(IPaymentRouter.PayerLockRequired.selector, o.orderId);
        expected = _expectOrder(o, a.from);
        if (expected.length != 0) return expected;
        if (a.validBefore > o.deadline + 1) {
            return abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline);
        }
    }

    /// @dev As the stock client: valid from 10 minutes ago for 5 minutes, but never past the order's deadline + 1.
    function _freshAuth(IPaymentRouter.PayOrder memory o, address from, uint256 key)
        internal
        returns (AuthUtils.Authorization memory a, uint256)
    {
        uint256 validBefore = block.timestamp + 5 minutes;
        if (validBefore > o.deadline + 1 && o.deadline >= block.timestamp) validBefore = o.deadline + 1;
        a = AuthUtils.Authorization(
            from, address(router), o.amount, block.timestamp - 10 minutes, validBefore, keccak256(abi.encode(++_xNonce))
        );
        return (a, key);
    }

    /// @dev The newest order still payable (unpaid, not cancelled, not expired), else one picked as usual.
    function _newestOpen(uint256 seed) internal view returns (uint256) {
        for (uint256 i = _orders.length; i > 0; --i) {
            IPaymentRouter.PayOrder storage o = _orders[i - 1];
            if (!ghostPaid[o.orderId] && !ghostCancelled[o.orderId] && o.deadline >= block.timestamp) return i - 1;
        }
        return _pick(seed);
    }

    /// @dev Three times in four the newest landed authorization not yet counted (if any), else any.
    function _pickLanded(uint256 seed) internal view returns (uint256) {
        if (seed % 4 != 0) {
            for (uint256 i = _landed.length; i > 0; --i) {
                if (!_landed[i - 1].consumed) return i - 1;
            }
        }
        return (seed >> 2) % _landed.length;
    }

    function _keyOf(address who) internal pure returns (uint256) {
        return payerKey(_payerIndex(who));
    }

    function _invalidAuth(AuthUtils.Authorization memory a) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(IPaymentRouter.InvalidAuthorization.selector, a.from, a.nonce);
    }

    function _copy(AuthUtils.Authorization memory a) internal pure returns (AuthUtils.Authorization memory) {
        return AuthUtils.Authorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce);
    }

    function _book(X x, bool ok, bytes memory err, bytes memory expected) internal returns (bool) {
        _tally(_xStats[uint256(x)], "x402 action ", uint256(x), ok, err, expected);
        return ok;
    }

    function _xSkip(X x) internal {
        _skipped(_xStats[uint256(x)]);
    }
}
