import { SigningClock } from '@idv/sdk';

/**
 * The signing times of every signed request a test process makes for itself, on every key: the
 * service accepts a signature once, test clocks stand still, and two helpers of one file signing
 * the same content in the same second must not collide (SigningClock: the next free second).
 */
export const signing = new SigningClock();
