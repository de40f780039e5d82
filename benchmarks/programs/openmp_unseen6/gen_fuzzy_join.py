#!/usr/bin/env python3
"""Write fuzzy_join_left.txt (4000 names) and fuzzy_join_right.txt (6000 names).

The right list is a "master" list of person and company names.  The left list
holds noisy copies of right-list names (typos, dropped letters, swapped
letters, changed case, reordered "Last, First", abbreviated company suffixes)
mixed with names that do not occur in the right list at all.
"""
import random

SEED = 777
LEFT = "fuzzy_join_left.txt"
RIGHT = "fuzzy_join_right.txt"
N_RIGHT = 6000
N_LEFT = 4000
SHARE_COPIES = 0.72

FIRST = """James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara
Richard Susan Joseph Jessica Thomas Sarah Christopher Karen Charles Lisa Daniel Nancy Matthew Betty
Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle
Kenneth Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ronald Stephanie Edward
Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy Nicholas Angela Eric Shirley
Jonathan Anna Stephen Brenda Larry Pamela Justin Emma Scott Nicole Brandon Helen Benjamin Samantha
Samuel Katherine Gregory Christine Alexander Debra Frank Rachel Patrick Carolyn Raymond Janet Jack
Catherine Dennis Maria Jerry Heather Tyler Diane Aaron Ruth Jose Julie Adam Olivia Nathan Joyce Henry
Virginia Douglas Victoria Zachary Kelly Peter Lauren Kyle Christina Ethan Joan Walter Evelyn Noah
Judith Jeremy Megan Christian Andrea Keith Cheryl Roger Hannah Terry Jacqueline Gerald Martha Harold
Gloria Sean Teresa Austin Ann Carl Sara Arthur Madison Lawrence Frances Dylan Kathryn Jesse Janice
Jordan Jean Bryan Abigail Billy Alice Joe Judy Bruce Sophia Gabriel Grace Logan Denise Albert Amber
Willie Doris Alan Marilyn Juan Danielle Wayne Beverly Elijah Isabella Randy Theresa Roy Diana Vincent
Natalie Ralph Brittany Eugene Charlotte Russell Marie Bobby Kayla Mason Alexis Philip Lori Quentin
Xavier Yolanda Zoe Ingrid Otto Ulrich Yusuf Hiroshi Wei Priya Oksana Dmitri Fatima Giovanni""".split()

LAST = """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez
Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams
Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz
Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson
Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray
Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins
Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero
Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant
Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez
McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford
Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer
Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels
Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold
Pierce Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson
Carroll Lane Riley Andrews Alvarado Ray Delgado Berry Perkins Hoffman Johnston Matthews Pena Richards
Willis Carpenter Lawrence Sandoval Guerrero George Chapman Rios Estrada Ortega Watkins Greene Nunez
Wheeler Valdez Harper Burke Larson Santiago Maldonado Morrison Franklin Carlson Austin Dominguez
Quinlan Xiong Yamamoto Zielinski Oyelaran Kowalczyk Schwarzenegger Abernathy Vanderbilt Okonkwo""".split()

WORDS = """Acme Global United Pacific Atlantic Northern Southern Eastern Western Central Summit Pioneer
Apex Vertex Horizon Liberty Heritage Quantum Fusion Vector Nova Stellar Orbit Cascade Harbor Granite
Iron Silver Golden Blue Green Red Redwood Oak Maple Cedar Pine River Lake Valley Mountain Canyon Prairie
Coastal Metro Urban Rural Prime First Premier Allied Consolidated Integrated Advanced Applied Dynamic
Strategic Digital Logic Data Cloud Net Web Cyber Micro Macro Bio Gen Medi Pharma Health Care Life Energy
Power Solar Wind Hydro Petro Gas Oil Steel Metal Chemical Plastics Textile Food Farm Agri Dairy Fresh
Organic Natural Pure Clear Bright Smart Swift Rapid Express Direct Trans Logistics Freight Cargo Marine
Aero Auto Motor Mobile Tech Systems Solutions Services Partners Holdings Group Capital Ventures
Investments Finance Trust Insurance Realty Properties Construction Engineering Design Media Studio
Publishing Print Paper Packaging Tools Machinery Equipment Electric Electronics Instruments Labs
Research Consulting Analytics Networks Communications Telecom Software Robotics Devices Materials
Northwind Contoso Fabrikam Tailspin Wingtip Litware Proseware Adventure Woodgrove Lucerne""".split()

SUFFIX = [("Inc", "Incorporated"), ("LLC", "L.L.C."), ("Ltd", "Limited"), ("Corp", "Corporation"),
          ("GmbH", "GmbH"), ("Co", "Company"), ("PLC", "P.L.C."), ("AG", "AG"), ("SA", "S.A."),
          ("BV", "B.V.")]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def person(rng):
    f, l = rng.choice(FIRST), rng.choice(LAST)
    r = rng.random()
    if r < 0.25:
        return "%s %s. %s" % (f, rng.choice(LETTERS).upper(), l)
    if r < 0.35:
        return "%s %s-%s" % (f, l, rng.choice(LAST))
    return "%s %s" % (f, l)


def company(rng):
    k = rng.choice([1, 2, 2, 2, 3])
    words = rng.sample(WORDS, k)
    if rng.random() < 0.15:
        words = [rng.choice(LAST)] + words[:1]
    if rng.random() < 0.1:
        words.insert(1, "&")
    suf = rng.choice(SUFFIX)[0]
    return " ".join(words) + " " + suf


def typo(rng, s):
    if len(s) < 4:
        return s
    i = rng.randrange(1, len(s) - 1)
    kind = rng.random()
    if kind < 0.3:        # substitution
        return s[:i] + rng.choice(LETTERS) + s[i + 1:]
    if kind < 0.55:       # deletion
        return s[:i] + s[i + 1:]
    if kind < 0.8:        # insertion
        return s[:i] + rng.choice(LETTERS) + s[i:]
    return s[:i - 1] + s[i] + s[i - 1] + s[i + 1:]   # transposition


def distort(rng, s):
    r = rng.random()
    parts = s.split(" ")
    if r < 0.12 and len(parts) == 2 and parts[0] in FIRST:
        s = "%s, %s" % (parts[1], parts[0])
    for short, long in SUFFIX:
        if s.endswith(" " + short) and rng.random() < 0.3:
            s = s[: -len(short)] + long
            break
    edits = rng.choice([0, 1, 1, 1, 2, 2, 3])
    for _ in range(edits):
        s = typo(rng, s)
    r = rng.random()
    if r < 0.1:
        s = s.upper()
    elif r < 0.2:
        s = s.lower()
    if rng.random() < 0.05:
        s = "  " + s + " "
    return s


def main():
    rng = random.Random(SEED)
    right, seen = [], set()
    while len(right) < N_RIGHT:
        name = person(rng) if rng.random() < 0.65 else company(rng)
        if name not in seen:
            seen.add(name)
            right.append(name)
    left = []
    while len(left) < N_LEFT:
        if rng.random() < SHARE_COPIES:
            left.append(distort(rng, rng.choice(right)))
        else:
            name = person(rng) if rng.random() < 0.65 else company(rng)
            if name not in seen:
                left.append(name)
    with open(RIGHT, "w") as f:
        f.write("\n".join(right) + "\n")
    with open(LEFT, "w") as f:
        f.write("\n".join(left) + "\n")


if __name__ == "__main__":
    main()
