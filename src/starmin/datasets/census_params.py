"""Hand-set parameters of the synthetic census generator.

All numbers are rounded, hand-written shapes: an adult-like population (mostly working-age,
two thirds male, a quarter earning >50K, 91 % US-born with a Zipf tail of 40 other countries).
The category labels are public census vocabulary. Nothing here is read from, or copied from,
a data file: the probabilities are the author's choices, normalised at use.

Index order of every tuple below is the code order of the generator.
"""

from __future__ import annotations

SEX = ("Male", "Female")
P_SEX = (0.67, 0.33)

AGE_MIN, AGE_MAX = 17, 90
# (first age, last age, weight of the whole band); ages within a band are equally likely
AGE_BANDS = (
    (17, 19, 4.5), (20, 24, 9.5), (25, 29, 12.0), (30, 34, 13.0), (35, 39, 13.0),
    (40, 44, 12.0), (45, 49, 10.0), (50, 54, 8.0), (55, 59, 6.0), (60, 64, 4.5),
    (65, 69, 2.2), (70, 74, 1.0), (75, 79, 0.5), (80, 84, 0.2), (85, 90, 0.12),
)
# age groups that condition education, marital status and salary: group g covers
# AGE_GROUP_STARTS[g] .. AGE_GROUP_STARTS[g+1]-1
AGE_GROUP_STARTS = (17, 20, 25, 30, 35, 45, 55, 65, 75)

RACE = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")

# country -> (sub-region, continent). The sub-region also conditions race.
COUNTRY_REGIONS = {
    "United-States": ("North-America", "America"),
    "Canada": ("North-America", "America"),
    "Outlying-US": ("North-America", "America"),
    "Mexico": ("Central-America", "America"),
    "El-Salvador": ("Central-America", "America"),
    "Guatemala": ("Central-America", "America"),
    "Nicaragua": ("Central-America", "America"),
    "Honduras": ("Central-America", "America"),
    "Puerto-Rico": ("Caribbean", "America"),
    "Cuba": ("Caribbean", "America"),
    "Jamaica": ("Caribbean", "America"),
    "Dominican-Republic": ("Caribbean", "America"),
    "Haiti": ("Caribbean", "America"),
    "Trinidad-Tobago": ("Caribbean", "America"),
    "Colombia": ("South-America", "America"),
    "Ecuador": ("South-America", "America"),
    "Peru": ("South-America", "America"),
    "England": ("Northern-Europe", "Europe"),
    "Scotland": ("Northern-Europe", "Europe"),
    "Ireland": ("Northern-Europe", "Europe"),
    "Germany": ("Western-Europe", "Europe"),
    "France": ("Western-Europe", "Europe"),
    "Netherlands": ("Western-Europe", "Europe"),
    "Italy": ("Southern-Europe", "Europe"),
    "Portugal": ("Southern-Europe", "Europe"),
    "Greece": ("Southern-Europe", "Europe"),
    "Poland": ("Eastern-Europe", "Europe"),
    "Hungary": ("Eastern-Europe", "Europe"),
    "Yugoslavia": ("Eastern-Europe", "Europe"),
    "China": ("East-Asia", "Asia"),
    "Japan": ("East-Asia", "Asia"),
    "Taiwan": ("East-Asia", "Asia"),
    "Hong-Kong": ("East-Asia", "Asia"),
    "South-Korea": ("East-Asia", "Asia"),
    "Philippines": ("South-East-Asia", "Asia"),
    "Vietnam": ("South-East-Asia", "Asia"),
    "Cambodia": ("South-East-Asia", "Asia"),
    "Thailand": ("South-East-Asia", "Asia"),
    "Laos": ("South-East-Asia", "Asia"),
    "India": ("South-Asia", "Asia"),
    "Iran": ("Middle-East", "Asia"),
}
P_HOME = 0.912
HOME = "United-States"
# the other 40 countries by rank; rank r gets weight (1 - P_HOME) * (1/r) / H_40 (Zipf, s = 1)
FOREIGN_RANK = (
    "Mexico", "Philippines", "Germany", "Canada", "Puerto-Rico", "India", "El-Salvador",
    "Cuba", "England", "Jamaica", "South-Korea", "China", "Italy", "Dominican-Republic",
    "Vietnam", "Guatemala", "Japan", "Poland", "Colombia", "Taiwan", "Haiti", "Iran",
    "Portugal", "Nicaragua", "Peru", "France", "Greece", "Ecuador", "Ireland", "Hong-Kong",
    "Cambodia", "Trinidad-Tobago", "Laos", "Thailand", "Yugoslavia", "Outlying-US",
    "Honduras", "Hungary", "Scotland", "Netherlands",
)
# race | birth sub-region (US-born get their own row "Home")
RACE_BY_REGION = {
    "Home": (87.0, 10.0, 1.2, 1.0, 0.8),
    "North-America": (82.0, 6.0, 9.0, 2.0, 1.0),
    "Central-America": (78.0, 1.0, 1.0, 4.0, 16.0),
    "Caribbean": (45.0, 40.0, 1.0, 1.0, 13.0),
    "South-America": (80.0, 3.0, 1.0, 2.0, 14.0),
    "Northern-Europe": (97.0, 1.5, 0.5, 0.3, 0.7),
    "Western-Europe": (96.0, 2.0, 1.0, 0.3, 0.7),
    "Southern-Europe": (97.0, 1.0, 0.5, 0.3, 1.2),
    "Eastern-Europe": (98.0, 0.5, 0.5, 0.3, 0.7),
    "East-Asia": (3.0, 0.5, 95.0, 0.5, 1.0),
    "South-East-Asia": (4.0, 0.5, 93.0, 0.5, 2.0),
    "South-Asia": (8.0, 1.0, 85.0, 0.5, 5.5),
    "Middle-East": (85.0, 2.0, 8.0, 0.5, 4.5),
}

EDUCATION = (
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
    "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school",
    "Doctorate",
)
P_EDUCATION = (0.15, 0.5, 1.0, 1.9, 1.5, 2.7, 3.5, 1.25, 32.6, 22.1, 4.3, 3.3, 16.7, 5.4, 1.8,
               1.25)
# education multipliers per age group (rows follow AGE_GROUP_STARTS)
EDUCATION_BY_AGE = (
    (1, 1, 1, 1, 2.5, 5, 9, 6, 1.3, 0.9, 0.05, 0.05, 0.01, 0, 0, 0),
    (1, 1, 1, 1, 1, 1.2, 1.3, 1.3, 1, 1.5, 0.8, 0.9, 0.55, 0.08, 0.02, 0.01),
    (0.8, 0.8, 0.8, 0.7, 0.8, 0.9, 0.9, 1, 1, 1.05, 1, 1, 1.1, 0.7, 0.6, 0.35),
    (1, 1, 1, 0.8, 0.8, 0.8, 0.8, 1, 1, 1, 1, 1, 1.1, 1.1, 1, 0.9),
    (1, 1, 1, 0.9, 0.9, 0.9, 0.9, 1, 1, 1, 1.1, 1.1, 1.05, 1.1, 1.1, 1.1),
    (1.2, 1.2, 1.2, 1.2, 1.1, 1, 1, 1, 1, 0.95, 1, 1, 0.95, 1.15, 1.2, 1.3),
    (2, 2, 2, 2, 1.5, 1.3, 1.2, 1, 1.05, 0.85, 0.8, 0.8, 0.85, 1, 1.2, 1.3),
    (3, 3, 3, 3, 2, 1.6, 1.3, 1, 1.1, 0.75, 0.6, 0.6, 0.7, 0.8, 1, 1.1),
    (4, 4, 4, 4, 2.5, 1.8, 1.3, 1, 1.1, 0.6, 0.4, 0.4, 0.6, 0.6, 0.8, 0.8),
)
# education groups that condition occupation: <=12th, HS-grad, college/assoc, bachelors,
# graduate
EDUCATION_GROUP = (0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4)

MARITAL = (
    "Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
    "Married-spouse-absent", "Married-AF-spouse",
)
# marital status | age group, for men (rows follow AGE_GROUP_STARTS)
MARITAL_BY_AGE = (
    (2.0, 97.0, 0.2, 0.3, 0.02, 0.4, 0.1),
    (16.0, 81.0, 1.2, 1.0, 0.1, 0.6, 0.1),
    (44.0, 48.0, 5.0, 2.0, 0.2, 0.8, 0.1),
    (60.0, 26.0, 10.0, 3.0, 0.3, 1.0, 0.1),
    (67.0, 13.0, 15.0, 3.5, 0.6, 1.4, 0.05),
    (71.0, 6.5, 17.0, 3.5, 1.5, 1.5, 0.03),
    (72.0, 4.5, 15.0, 3.0, 4.5, 1.5, 0.02),
    (68.0, 4.0, 10.0, 2.0, 15.0, 1.2, 0.0),
    (52.0, 3.0, 6.0, 1.0, 37.0, 1.0, 0.0),
)
# women: multiply the men's row (the table counts one spouse per married couple)
MARITAL_FEMALE = (0.4, 1.15, 2.0, 2.2, 3.2, 1.2, 2.0)

OCCUPATION = (
    "Prof-specialty", "Craft-repair", "Exec-managerial", "Adm-clerical", "Sales",
    "Other-service", "Machine-op-inspct", "Transport-moving", "Handlers-cleaners",
    "Farming-fishing", "Tech-support", "Protective-serv", "Priv-house-serv", "Armed-Forces",
)
# occupation | education group (rows follow EDUCATION_GROUP codes)
OCCUPATION_BY_EDUCATION = (
    (2.0, 18.0, 4.0, 5.0, 9.0, 22.0, 14.0, 8.0, 10.0, 8.0, 1.0, 1.0, 2.0, 0.03),
    (3.0, 18.0, 8.0, 14.0, 11.0, 13.0, 9.0, 8.0, 6.0, 4.0, 2.0, 2.5, 0.5, 0.03),
    (10.0, 12.0, 12.0, 19.0, 13.0, 10.0, 4.0, 4.0, 3.0, 2.0, 5.0, 3.0, 0.3, 0.04),
    (30.0, 4.0, 25.0, 11.0, 16.0, 3.0, 1.0, 1.5, 1.0, 1.0, 4.0, 2.0, 0.1, 0.03),
    (62.0, 1.0, 23.0, 3.0, 7.0, 1.0, 0.3, 0.3, 0.2, 0.5, 1.5, 1.0, 0.05, 0.03),
)
OCCUPATION_SEX = (
    (1.0, 1.5, 1.1, 0.5, 1.0, 0.7, 1.2, 1.4, 1.3, 1.3, 1.0, 1.4, 0.15, 1.3),
    (1.0, 0.1, 0.8, 2.5, 1.0, 1.8, 0.6, 0.15, 0.4, 0.3, 1.0, 0.35, 6.0, 0.2),
)

WORKCLASS = (
    "Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Self-emp-inc", "Federal-gov",
    "Without-pay",
)
# workclass | occupation (rows follow OCCUPATION)
WORKCLASS_BY_OCCUPATION = (
    (55.0, 8.0, 17.0, 11.0, 3.0, 5.0, 0.03),
    (78.0, 11.0, 4.0, 1.5, 3.5, 2.0, 0.03),
    (68.0, 8.0, 6.0, 4.0, 9.0, 5.0, 0.03),
    (72.0, 2.0, 8.0, 7.0, 1.0, 8.0, 0.05),
    (80.0, 8.0, 0.4, 0.3, 11.0, 0.2, 0.05),
    (84.0, 5.0, 7.0, 3.0, 0.6, 1.0, 0.1),
    (96.0, 1.5, 0.5, 0.5, 1.0, 0.5, 0.05),
    (81.0, 6.0, 6.0, 1.5, 2.0, 3.0, 0.1),
    (92.0, 1.5, 4.0, 1.0, 0.5, 1.0, 0.1),
    (45.0, 36.0, 3.0, 3.0, 5.0, 1.0, 3.0),
    (75.0, 2.0, 5.0, 7.0, 1.0, 10.0, 0.0),
    (22.0, 1.0, 45.0, 16.0, 0.5, 15.0, 0.0),
    (99.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5),
    (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0),
)

SALARY = ("<=50K", ">50K")
# logit of P(>50K) = intercept + effects (education, age group, sex, marital, occupation)
SALARY_INTERCEPT = -2.45
SALARY_EDUCATION = (-2.0, -1.8, -1.6, -1.5, -1.4, -1.3, -1.3, -1.1, 0.0, 0.2, 0.45, 0.45, 1.2,
                    1.6, 2.3, 2.2)
SALARY_AGE = (-3.0, -1.8, -0.6, 0.1, 0.5, 0.6, 0.4, 0.0, -0.4)
SALARY_SEX = (0.3, -0.3)
SALARY_MARITAL = (1.3, -0.6, -0.3, -0.5, -0.4, -0.3, 1.0)
SALARY_OCCUPATION = (0.6, 0.0, 0.8, -0.2, 0.2, -1.3, -0.4, -0.1, -0.8, -0.8, 0.4, 0.3, -2.0,
                     0.0)
