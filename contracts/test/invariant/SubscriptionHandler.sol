// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {ISubscriptionManager} from "../../src/ISubscriptionManager.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {SubscriptionManager} from "../../src/SubscriptionManager.sol";
import {IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {TestBase} from "../utils/TestBase.sol";

/// @notice Drives charges, revocations, warps across periods and router pauses over four spend permissions (two
///         payers, periods of 1, 7, 30 and 3 days, with and without an end) with Circle's USDC. Every operator
///         charge runs in try/catch against the outcome a model predicts (empty = success, else the exact revert
///         data); a charge by a stranger or with a tampered permission must always fail.
contract SubscriptionHandler is TestBase {
    uint256 public constant PERMS = 4;
    bytes32 internal constant TAG = keccak256("sub_invariant");

    PaymentRouter public immutable router;
    IFiatTokenV2_2 public immutable fiat;
    SubscriptionManager public immutable manager;
    address public immutable owner;
    address public immutable operator;
    address public immutable merchant;
    address public immutable platform;
    address public immutable stranger;

    ISubscriptionManager.SpendPermission[PERMS] internal _perms;
    bytes[PERMS] internal _sigs;
    bytes32[PERMS] public hashes;

    uint256[PERMS] public ghostTotal; // Σ charged per permission
    mapping(uint256 perm => mapping(uint256 period => uint256)) public ghostCount;
    bool[PERMS] public ghostRevoked;
    bool public ghostPaused;
    uint256 public ghostReserve;
    uint256 public charges; // successful operator charges
    uint256 public refused; // operator charges refused as predicted
    uint256 public unexpected; // an outcome other than the predicted one
    uint256 public doubleCharges; // a second successful charge in one period
    uint256 public chargesAfterRevoke;
    uint256 public forgedSuccesses; // a stranger's or a tampered charge that went through
    string public lastUnexpected;
    uint256 internal _nonce;

    constructor(
        PaymentRouter router_,
        IFiatTokenV2_2 fiat_,
        SubscriptionManager manager_,
        address owner_,
        address operator_,
        uint256[2] memory payerKeys
    ) {
        (router, fiat, manager, owner, operator) = (router_, fiat_, manager_, owner_, operator_);
        (merchant, platform, stranger) = (makeAddr("sub merchant"), makeAddr("sub platform"), makeAddr("stranger"));
        uint32[PERMS] memory periods = [uint32(1 days), 7 days, 30 days, 3 days];
        uint48[PERMS] memory counts = [type(uint48).max, 4, 12, 2];
        uint160[PERMS] memory amounts = [uint160(10e6), 25e6, 100e6, 1_000_007];
        for (uint256 i; i < PERMS; ++i) {
            uint48 start = uint48(block.timestamp + i * 1 days);
            ISubscriptionManager.SpendPermission memory p = ISubscriptionManager.SpendPermission({
                payer: vm.addr(payerKeys[i % 2]),
                token: address(fiat_),
                merchant: merchant,
                platform: platform,
                amount: amounts[i],
                period: periods[i],
                start: start,
                end: counts[i] == type(uint48).max ? type(uint48).max : uint48(start + counts[i] * periods[i]),
                serviceFeeBps: uint16(100 * i + 33),
                platformFeeBps: uint16(700 - 100 * i),
                reserveBps: uint16(2500 * i),
                salt: uint256(keccak256(abi.encode(TAG, i)))
            });
            _perms[i] = p;
            hashes[i] = manager_.hashPermission(p);
            _sigs[i] = SigUtils.sign(payerKeys[i % 2], hashes[i]);
        }
    }

    function perm(uint256 i) external view returns (ISubscriptionManager.SpendPermission memory) {
        return _perms[i];
    }

    function charge(uint256 permSeed, uint256 amountSeed) external {
        uint256 i = permSeed % PERMS;
        ISubscriptionManager.SpendPermission memory p = _perms[i];
        uint256 amount = amountSeed % (uint256(p.amount) + 2); // 0 and amount + 1 included
        (bytes memory predicted, uint256 period) = _predict(i, amount);
        bytes32 orderId = keccak256(abi.encode("ord_sub_inv", ++_nonce));
        vm.prank(operator);
        try manager.charge(p, _sigs[i], orderId, amount) {
            if (predicted.length != 0) _unexpected("charge succeeded, predicted a revert");
            _book(i, period, amount);
        } catch (bytes memory err) {
            if (keccak256(err) != keccak256(predicted)) _unexpected("charge reverted otherwise than predicted");
            else ++refused;
        }
    }

    /// A stranger, or the operator with a permission whose merchant, amount or fee it changed: never charged.
    function chargeForged(uint256 permSeed, uint256 how) external {
        uint256 i = permSeed % PERMS;
        ISubscriptionManager.SpendPermission memory p = _perms[i];
        address caller = operator;
        if (how % 4 == 0) caller = stranger;
        else if (how % 4 == 1) p.merchant = stranger;
        else if (how % 4 == 2) p.amount += 1;
        else p.serviceFeeBps += 1;
        bytes32 orderId = keccak256(abi.encode("ord_sub_forged", ++_nonce));
        vm.prank(caller);
        try manager.charge(p, _sigs[i], orderId, 1) {
            ++forgedSuccesses;
        } catch {}
    }

    /// One call in four revokes (by the payer or the operator), so most runs keep charging for a while.
    function revoke(uint256 permSeed, uint256 how) external {
        if (how % 4 != 0) return;
        uint256 i = permSeed % PERMS;
        if ((how >> 2) % 2 == 0) {
            vm.prank(_perms[i].payer);
            manager.revoke(_perms[i]);
        } else {
            vm.prank(operator);
            manager.revokeAsOperator(hashes[i]);
        }
        ghostRevoked[i] = true;
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + bound(secondsSeed, 1 hours, 20 days));
    }

    /// One call in three toggles the router's pause.
    function togglePause(uint256 seed) external {
        if (seed % 3 != 0) return;
        vm.prank(owner);
        if (ghostPaused) router.unpause();
        else router.pause();
        ghostPaused = !ghostPaused;
    }

    /// Periods of permission `i` begun by now (0 before start; the end caps it).
    function periodsBegun(uint256 i) public view returns (uint256) {
        ISubscriptionManager.SpendPermission memory p = _perms[i];
        if (block.timestamp < p.start) return 0;
        uint256 last = block.timestamp < p.end ? block.timestamp : uint256(p.end) - 1;
        return (last - p.start) / p.period + 1;
    }

    function _predict(uint256 i, uint256 amount) private view returns (bytes memory, uint256 period) {
        ISubscriptionManager.SpendPermission memory p = _perms[i];
        if (ghostRevoked[i]) return (abi.encodeWithSelector(ISubscriptionManager.Revoked.selector, hashes[i]), 0);
        if (block.timestamp < p.start || block.timestamp >= p.end) {
            return (
                abi.encodeWithSelector(ISubscriptionManager.OutsideWindow.selector, p.start, p.end, block.timestamp), 0
            );
        }
        period = (block.timestamp - p.start) / p.period;
        if (ghostCount[i][period] != 0) {
            return (abi.encodeWithSelector(ISubscriptionManager.PeriodAlreadyCharged.selector, hashes[i], period), 0);
        }
        if (amount == 0 || amount > p.amount) {
            return (abi.encodeWithSelector(ISubscriptionManager.InvalidChargeAmount.selector, amount, p.amount), 0);
        }
        if (ghostPaused) return (abi.encodeWithSelector(Pausable.EnforcedPause.selector), 0);
        return ("", period);
    }

    function _book(uint256 i, uint256 period, uint256 amount) private {
        ++charges;
        if (ghostRevoked[i]) ++chargesAfterRevoke;
        if (++ghostCount[i][period] > 1) ++doubleCharges;
        ghostTotal[i] += amount;
        ISubscriptionManager.SpendPermission memory p = _perms[i];
        uint256 s = amount * p.serviceFeeBps / 10_000;
        uint256 pf = amount * p.platformFeeBps / 10_000;
        ghostReserve += (amount - s - pf) * p.reserveBps / 10_000;
    }

    function _unexpected(string memory what) private {
        ++unexpected;
        lastUnexpected = what;
    }
}
