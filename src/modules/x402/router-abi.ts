import { parseAbi } from 'viem';

/**
 * The router's x402 entry points and events (NEXT-CONTRACTS.md section A; contracts/src/RouterX402.sol). Kept here
 * as human-readable ABI so this module does not depend on which artifact carries them; test/unit/x402-abi.test.ts
 * checks every selector and topic against the generated PaymentRouter artifact.
 */
export const x402RouterAbi = parseAbi([
  'struct PayOrder { bytes32 orderId; address token; uint256 amount; address payer; address merchant; address platform; uint256 serviceFee; uint256 platformFee; uint256 reserveHold; uint256 deadline; uint256 captureDeadline; }',
  'function payOrderWithTransfer(PayOrder order, bytes signature, address from, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes authorization)',
  'function attributeTransfer(PayOrder order, bytes signature, address from, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes authorization)',
  'function returnTransfer(address token, address from, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes authorization)',
  'function x402Consumed(address from, bytes32 nonce) view returns (bool)',
  'event X402Settled(bytes32 indexed orderId, address indexed from, bytes32 nonce)',
  'event X402Attributed(bytes32 indexed orderId, address indexed from, bytes32 nonce)',
  'event X402Returned(address indexed token, address indexed from, bytes32 nonce, uint256 value)',
]);
