// The references the Croqtile rules' documentation pages cite.
export const CO_SOURCES = ['Croqtile tutorial ch05/ch06 (bootstrap, mma.commit)', 'Croqtile Documents/Documentation/events.md'];
