/**
 * Keys the page documents for moving around (README "Keyboard"). F6 is the platforms' "next
 * region" key; it types no character on any layout. In the task terminal every other key,
 * Tab and Esc included, belongs to the program running there.
 */
export const LEAVE_TERMINAL_KEY = 'F6';
