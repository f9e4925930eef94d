export function area(width: number, height: number): number {
  return width * height;
}

export const count: number = 'three';
export const size = area(2, 3);
