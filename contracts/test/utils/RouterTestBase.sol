// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {SigUtils} from "./SigUtils.sol";
import {TestBase} from "./TestBase.sol";

/// @notice Shared fixture: a router, TestUSDC, parties and helpers that build and sign orders the way the
///         service does (split in basis points, floors, reserve taken from the merchant's gross).
abstract contract RouterTestBase is TestBase {
    uint256 internal constant SIGNER_KEY = 0xA11CE;
    uint256 internal constant OTHER_KEY = 0xB0B;
    uint256 internal constant BUYER_KEY = 0xB17E;
    uint256 internal constant START = 1_750_000_000;
    uint256 internal constant HOLD = 7 days;

    PaymentRouter internal router;
    TestUSDC internal usdc;
    address internal owner;
    address internal signer;
    address internal operator;
    address internal treasury;
    address internal platform;
    address internal merchant;
    address internal buyer;
    uint256 private _nonce;

    function setUp() public virtual {
        vm.warp(START);
        owner = makeAddr("owner");
        operator = makeAddr("operator");
        treasury = makeAddr("treasury");
        platform = makeAddr("platform");
        merchant = makeAddr("merchant");
        signer = vm.addr(SIGNER_KEY);
        buyer = vm.addr(BUYER_KEY);
        vm.label(buyer, "buyer");
        router = new PaymentRouter(owner, signer, operator, treasury, HOLD);
        usdc = new TestUSDC(address(this));
        usdc.mint(buyer, 1e15);
        vm.prank(buyer);
        usdc.approve(address(router), type(uint256).max);
    }

    /// @dev 100 USDC, 1% service, 5% platform, 10% reserve of the merchant's gross, payable by anyone.
    function defaultOrder() internal returns (IPaymentRouter.PayOrder memory) {
        return splitOrder(address(usdc), 100e6, 100, 500, 1000);
    }

    function splitOrder(address token, uint256 amount, uint256 serviceBps, uint256 platformBps, uint256 reserveBps)
        internal
        returns (IPaymentRouter.PayOrder memory o)
    {
        uint256 serviceFee = amount * serviceBps / 10_000;
        uint256 platformFee = amount * platformBps / 10_000;
        o = IPaymentRouter.PayOrder({
            orderId: keccak256(abi.encodePacked("ord_", ++_nonce)),
            token: token,
            amount: amount,
            payer: address(0),
            merchant: merchant,
            platform: platform,
            serviceFee: serviceFee,
            platformFee: platformFee,
            reserveHold: (amount - serviceFee - platformFee) * reserveBps / 10_000,
            deadline: block.timestamp + 1 hours,
            captureDeadline: 0
        });
    }

    function refundOrder(bytes32 orderId, uint256 amount) internal returns (IPaymentRouter.RefundOrder memory) {
        return IPaymentRouter.RefundOrder({
            orderId: orderId,
            refundId: keccak256(abi.encodePacked("re_", ++_nonce)),
            to: buyer,
            amount: amount,
            deadline: block.timestamp + 1 hours
        });
    }

    function sign(IPaymentRouter.PayOrder memory o) internal view returns (bytes memory) {
        return SigUtils.signPay(SIGNER_KEY, o, address(router));
    }

    function sign(IPaymentRouter.RefundOrder memory r) internal view returns (bytes memory) {
        return SigUtils.signRefund(SIGNER_KEY, r, address(router));
    }

    function pay(IPaymentRouter.PayOrder memory o) internal {
        bytes memory sig = sign(o);
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function bal(address account) internal view returns (uint256) {
        return IERC20(address(usdc)).balanceOf(account);
    }

    function payAs(address who, IPaymentRouter.PayOrder memory o) internal {
        bytes memory sig = sign(o);
        vm.prank(who);
        router.payOrder(o, sig);
    }

    /// @dev Moves the chain's clock to the first second at which settleBatch may release `orderId`'s reserve.
    function warpPastHold(bytes32 orderId) internal {
        vm.warp(router.orders(orderId).releaseAfter);
    }

    function ids1(bytes32 id) internal pure returns (bytes32[] memory ids) {
        ids = new bytes32[](1);
        ids[0] = id;
    }

    /// @dev A real EIP-2612 permit from `key`'s address to the router, signed over TestUSDC's own domain.
    function signPermit(uint256 key, uint256 value, uint256 deadline) internal view returns (uint8, bytes32, bytes32) {
        address holder = vm.addr(key);
        bytes32 digest = SigUtils.permitDigest(
            usdc.DOMAIN_SEPARATOR(), holder, address(router), value, usdc.nonces(holder), deadline
        );
        return vm.sign(key, digest);
    }
}
